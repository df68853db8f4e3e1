// One connected SDK client: the transport for the endpoint, the initialize handshake and the
// first inventory (tools, resources, templates), all under the startup timeout. A connection
// never reconnects itself; the session above it decides when to start another.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
  type ElicitResult,
  type Implementation,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../../common/clock.js';
import { ioErrorText } from '../../../common/io-error-text.js';
import { HOST_VERSION } from '../../protocol/thread-view.js';
import { CallDeadline, DeadlineReason } from './call-deadline.js';
import type { McpLaunch } from './mcp-launch.js';
import { ProcessGroupTransport } from './process-group-transport.js';

/** What the server offers, as last listed. */
export interface McpInventory {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

/** The session's side of a connection: what the server asks of the host. */
export interface ConnectionHandlers {
  onElicitation(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  onListChanged(list: 'tools' | 'resources'): void;
  /** The transport closed: the process exited or the HTTP session ended. Once. */
  onClosed(): void;
}

/** A connected client with its first inventory. */
export interface McpConnection {
  client: Client;
  /** The stdio server's pid (its process group's id), or null for HTTP. */
  pid: number | null;
  serverInfo: Implementation | null;
  /** The capabilities the server declared in its initialize answer. */
  serverCapabilities: ServerCapabilities | null;
  inventory: McpInventory;
  close(): Promise<void>;
}

// Pages of one listing at most: a server whose cursors never end cannot hold a start hostage.
const MAX_LIST_PAGES = 100;

/**
 * Connects and lists under `launch.startupTimeoutMs`; throws the text the startup status
 * carries, the reference's (`mcp_init_error_display` in codex-rs/codex-mcp).
 */
export async function connectServer(launch: McpLaunch, clock: Clock, handlers: ConnectionHandlers): Promise<McpConnection> {
  const transport = transportFor(launch);
  const client = new Client({ name: 'codex-mcp-client', title: 'thread-host', version: HOST_VERSION }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => handlers.onElicitation(request.params, extra.signal));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => handlers.onListChanged('tools'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => handlers.onListChanged('resources'));
  let closed = false;
  client.onclose = () => {
    if (closed) return;
    closed = true;
    handlers.onClosed();
  };
  const deadline = new CallDeadline(clock, launch.startupTimeoutMs);
  const options = { signal: deadline.signal, timeout: launch.startupTimeoutMs + 1_000 };
  try {
    await client.connect(transport, options);
    const inventory = await listInventory(client, deadline.signal);
    const pid = transport instanceof ProcessGroupTransport ? transport.pid : null;
    return {
      client,
      pid,
      serverInfo: client.getServerVersion() ?? null,
      serverCapabilities: client.getServerCapabilities() ?? null,
      inventory,
      close: () => client.close(),
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    // The SDK rejects an aborted request with its own McpError, so ask the deadline.
    throw new Error(startupFailureText(launch, deadline.signal.aborted ? deadline.signal.reason : error));
  } finally {
    deadline.dispose();
  }
}

/** Tools always; resources and templates when the server has them (a failure there lists none). */
export async function listInventory(client: Client, signal: AbortSignal): Promise<McpInventory> {
  const tools = await listTools(client, signal);
  if (client.getServerCapabilities()?.resources === undefined) return { tools, resources: [], resourceTemplates: [] };
  const [resources, resourceTemplates] = await Promise.all([
    listPages(async (cursor) => {
      const page = await client.listResources({ cursor }, { signal });
      return { items: page.resources, next: page.nextCursor };
    }).catch(() => []),
    listPages(async (cursor) => {
      const page = await client.listResourceTemplates({ cursor }, { signal });
      return { items: page.resourceTemplates, next: page.nextCursor };
    }).catch(() => []),
  ]);
  return { tools, resources, resourceTemplates };
}

/** Every page of tools/list. */
export function listTools(client: Client, signal: AbortSignal): Promise<Tool[]> {
  return listPages(async (cursor) => {
    const page = await client.listTools({ cursor }, { signal });
    return { items: page.tools, next: page.nextCursor };
  });
}

async function listPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | undefined }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_LIST_PAGES; n += 1) {
    const result = await page(cursor);
    items.push(...result.items);
    if (result.next === undefined) break;
    cursor = result.next;
  }
  return items;
}

function transportFor(launch: McpLaunch): Transport {
  const endpoint = launch.endpoint;
  if (endpoint.kind === 'stdio') return new ProcessGroupTransport(endpoint);
  return new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } });
}

// codex-rs/codex-mcp `mcp_init_error_display` (and `mcp_startup_timeout_message`): the
// startup timeout in whole seconds (`Duration::as_secs`), otherwise "failed to start: {err:#}".
// (Probed: a missing command is `MCP startup failed: No such file or directory (os error 2)`.)
function startupFailureText(launch: McpLaunch, error: unknown): string {
  if (error instanceof DeadlineReason) {
    const secs = Math.floor(launch.startupTimeoutMs / 1000);
    return (
      `MCP client for \`${launch.name}\` timed out after ${secs} seconds. Add or adjust \`startup_timeout_sec\` in your config.toml:\n` +
      `[mcp_servers.${launch.name}]\nstartup_timeout_sec = XX`
    );
  }
  // A command that cannot be spawned: rmcp's "MCP startup failed: {io::Error}".
  const spawnFailed = String((error as NodeJS.ErrnoException | null)?.syscall ?? '').startsWith('spawn');
  const detail = spawnFailed ? `MCP startup failed: ${ioErrorText(error)}` : error instanceof Error ? error.message : String(error);
  return `MCP client for \`${launch.name}\` failed to start: ${detail}`;
}
