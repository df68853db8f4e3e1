// The MCP servers of each loaded thread, on the host's one hub (mcp/mcp-hub.ts): a thread takes
// a lease per enabled server when it loads and gives them back when it unloads, so threads with
// the same launch share one session (one process) and a server no loaded thread uses stops.
// Their tools are offered to the model under the reference's names (a namespace
// `mcp__<server>` per server) and a call names the lease and tool it goes to.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LogFn } from '../../common/log.js';
import { McpHub, type McpLease } from './mcp/mcp-hub.js';
import { McpLaunchError, resolveLaunch } from './mcp/mcp-launch.js';
import type { McpServerConfig } from './mcp/mcp-server-config.js';

/** The tool a model's call names, with the server's settings for it. */
export interface McpToolTarget {
  lease: McpLease;
  server: McpServerConfig;
  tool: Tool;
}

interface ThreadServers {
  servers: Map<string, { config: McpServerConfig; lease: McpLease | null; launchError: string | null }>;
  /** The tools each server listed when the thread's turn last asked, by server name. */
  tools: Map<string, Tool[]>;
  /** `server/tool` keys the client approved for the rest of the thread's life here (`persist: "session"`). */
  approved: Set<string>;
}

const NAMESPACE_PREFIX = 'mcp__';

export class ThreadMcp {
  readonly hub: McpHub;
  readonly #threads = new Map<string, ThreadServers>();
  readonly #env: NodeJS.ProcessEnv;
  readonly #log: LogFn;

  constructor(hub: McpHub, env: NodeJS.ProcessEnv, log: LogFn) {
    this.hub = hub;
    this.#env = env;
    this.#log = log;
  }

  /** The thread loaded with these servers: a lease on each enabled one (nothing starts yet). */
  attach(threadId: string, servers: readonly McpServerConfig[]): void {
    this.detach(threadId);
    const enabled = servers.filter((server) => server.enabled);
    if (enabled.length === 0) return;
    const entry: ThreadServers = { servers: new Map(), tools: new Map(), approved: new Set() };
    for (const config of enabled) {
      try {
        entry.servers.set(config.name, { config, lease: this.hub.lease(threadId, resolveLaunch(config, this.#env)), launchError: null });
      } catch (error) {
        if (!(error instanceof McpLaunchError)) throw error;
        this.#log('warn', 'MCP server cannot be launched', { threadId, server: config.name, error: error.message });
        entry.servers.set(config.name, { config, lease: null, launchError: error.message });
      }
    }
    this.#threads.set(threadId, entry);
  }

  /** The thread unloads: its leases go back (a server no thread holds stops after a linger). */
  detach(threadId: string): void {
    if (!this.#threads.delete(threadId)) return;
    this.hub.releaseThread(threadId);
  }

  /** Whether the thread's turns ask for MCP tools before sampling. */
  offersTools(threadId: string): boolean {
    return this.#threads.has(threadId);
  }

  /**
   * The Responses API `tools` entries of the thread's servers, each listed (and so started)
   * under its startup deadline; a server that fails is left out and the turn goes on.
   */
  async toolSpecs(threadId: string): Promise<unknown[]> {
    const entry = this.#threads.get(threadId);
    if (entry === undefined) return [];
    const names = [...entry.servers.keys()].sort();
    const listed = await Promise.all(
      names.map(async (name) => {
        const server = entry.servers.get(name)!;
        if (server.lease === null) return [];
        try {
          return await this.hub.tools(server.lease);
        } catch (error) {
          this.#log('warn', 'MCP server tools unavailable', { threadId, server: name, error: (error as Error).message });
          return [];
        }
      }),
    );
    const specs: unknown[] = [];
    names.forEach((name, i) => {
      const tools = [...listed[i]!].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      entry.tools.set(name, tools);
      if (tools.length === 0) return;
      specs.push({
        type: 'namespace',
        name: `${NAMESPACE_PREFIX}${name}`,
        description: `Tools in the ${NAMESPACE_PREFIX}${name} namespace.`,
        tools: tools.map((tool) => ({ type: 'function', name: tool.name, description: tool.description ?? '', strict: false, parameters: withoutSchemaKey(tool.inputSchema) })),
      });
    });
    return specs;
  }

  /** The server tool a call names (`mcp__<server>` namespace), as last listed for the thread. */
  toolFor(threadId: string, namespace: string | null, name: string): McpToolTarget | undefined {
    if (namespace === null || !namespace.startsWith(NAMESPACE_PREFIX)) return undefined;
    const entry = this.#threads.get(threadId);
    const serverName = namespace.slice(NAMESPACE_PREFIX.length);
    const server = entry?.servers.get(serverName);
    const tool = entry?.tools.get(serverName)?.find((candidate) => candidate.name === name);
    if (server?.lease == null || tool === undefined) return undefined;
    return { lease: server.lease, server: server.config, tool };
  }

  /** One of the thread's servers, with its lease; undefined when it has none of that name (or could not launch it). */
  serverOf(threadId: string, name: string): { lease: McpLease; config: McpServerConfig } | undefined {
    const server = this.#threads.get(threadId)?.servers.get(name);
    return server?.lease == null ? undefined : { lease: server.lease, config: server.config };
  }

  /** Whether the client approved `key` (`server/tool`) for the thread's session. */
  approvedForSession(threadId: string, key: string): boolean {
    return this.#threads.get(threadId)?.approved.has(key) === true;
  }

  approveForSession(threadId: string, key: string): void {
    this.#threads.get(threadId)?.approved.add(key);
  }

  /** Host shutdown: every session stops, every stdio server's process group is killed. */
  close(): Promise<void> {
    this.#threads.clear();
    return this.hub.close();
  }
}

// The reference drops a schema's `$schema` member before offering it; the rest stays as sent.
function withoutSchemaKey(schema: Tool['inputSchema']): Record<string, unknown> {
  const { $schema: _schema, ...rest } = schema as Record<string, unknown>;
  return rest;
}
