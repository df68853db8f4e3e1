// The reference's three resource tools, offered beside a thread's MCP servers (codex 0.171.0,
// probed): `list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource`, word
// for word. A call is an `mcpToolCall` item (server `codex` for a listing of every server) and
// the model is given the answer as JSON text, or the reference's error text.
import type { ToolAnswer, ToolCall } from '../../common/actor-messages.js';
import type { McpToolCallItem } from '../../common/wire-types.js';
import type { HostContext } from '../host-context.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import { failureParts } from './mcp-failure.js';
import { outputIdOf } from './tool-output-id.js';
import { argumentsObject, parsedArguments } from './tool-arguments.js';

const SERVER_DESCRIPTION = 'MCP server name. Omit to list resources from every configured server.';

export const MCP_RESOURCE_TOOLS: readonly unknown[] = [
  {
    type: 'function',
    name: 'list_mcp_resources',
    description: 'Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        cursor: { type: 'string', description: 'Opaque cursor from a previous list_mcp_resources call; omit for the first page.' },
        server: { type: 'string', description: SERVER_DESCRIPTION },
      },
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'list_mcp_resource_templates',
    description: 'Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        cursor: { type: 'string', description: 'Opaque cursor from a previous list_mcp_resource_templates call; omit for the first page.' },
        server: { type: 'string', description: 'MCP server name. Omit to list resource templates from every configured server.' },
      },
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'read_mcp_resource',
    description: 'Read a specific resource from an MCP server given the server name and resource URI.',
    strict: false,
    parameters: {
      type: 'object',
      properties: {
        server: { type: 'string', description: "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources." },
        uri: { type: 'string', description: 'Resource URI to read. Must be one of the URIs returned by list_mcp_resources.' },
      },
      required: ['server', 'uri'],
      additionalProperties: false,
    },
  },
];

const NAMES = new Set(['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource']);

/** Whether a call names one of the resource tools (they have no namespace). */
export function isMcpResourceCall(call: ToolCall): boolean {
  return call.kind === 'function' && call.namespace === null && NAMES.has(call.name);
}

/** Runs a resource tool's call; `done` gets its answer. Never throws. */
export function callMcpResourceTool(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number, done: (answer: ToolAnswer) => void): void {
  const args = argumentsObject(parsedArguments(call.input));
  const server = typeof args.server === 'string' ? args.server : null;
  const started: McpToolCallItem = {
    type: 'mcpToolCall', id: call.callId, server: server ?? 'codex', environmentId: null, tool: call.name, status: 'inProgress',
    arguments: args, appContext: null, mcpAppUi: null, pluginId: null, readOnlyHint: null, result: null, error: null,
    durationMs: null, startedAtMs, completedAtMs: null,
  };
  thread.toolItemStarted(turnId, started);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/started', { item: started, threadId: thread.id, turnId, startedAtMs });
  const finish = (outcome: { text: string; failed: boolean }): void => {
    const completedAtMs = ctx.clock.now();
    const item: McpToolCallItem = {
      ...started,
      status: outcome.failed ? 'failed' : 'completed',
      result: outcome.failed ? null : { content: [{ type: 'text', text: outcome.text }], structuredContent: null, _meta: null },
      error: outcome.failed ? { message: outcome.text } : null,
      durationMs: completedAtMs - startedAtMs,
      completedAtMs,
    };
    thread.toolItemCompleted(turnId, item);
    ctx.outgoing.notifyMany(thread.subscribers, 'item/completed', { item, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs });
    done({ turnId, callId: call.callId, output: outcome.text, outputId: outputIdOf(ctx), item });
  };
  answerOf(ctx, thread.id, call.name, server, args).then(
    (text) => finish({ text, failed: false }),
    (error: unknown) => finish({ text: error instanceof Error ? error.message : String(error), failed: true }),
  );
}

async function answerOf(ctx: HostContext, threadId: string, tool: string, server: string | null, args: Record<string, unknown>): Promise<string> {
  const names = server === null ? ctx.mcp.serverNames(threadId) : [server];
  const servers = await Promise.all(
    names.map(async (name) => {
      const found = await ctx.mcp.serverOf(threadId, name);
      if (found === undefined) throw new Error(`unknown MCP server '${name}' for the selected environment`);
      return { name, ...found };
    }),
  );
  if (tool === 'read_mcp_resource') {
    const [only] = servers;
    const uri = typeof args.uri === 'string' ? args.uri : '';
    try {
      const result = await only!.hub.readResource(only!.lease, uri, { deadlineMs: only!.config.toolTimeoutMs ?? undefined });
      return JSON.stringify({ server: only!.name, uri, contents: result.contents });
    } catch (error) {
      const cause = failureParts(error)?.cause ?? String(error);
      throw new Error(`resources/read failed: resources/read failed for \`${only!.name}\` (${uri}): ${cause}`);
    }
  }
  const templates = tool === 'list_mcp_resource_templates';
  const listed: unknown[] = [];
  for (const { name, hub, lease, config } of servers) {
    if (templates) {
      await hub.tools(lease);
      const status = hub.status(threadId).find((entry) => entry.name === name);
      for (const template of status?.resourceTemplates ?? []) listed.push(inReferenceOrder(name, template as Record<string, unknown>, TEMPLATE_KEYS));
    } else {
      for (const resource of await hub.listResources(lease, { deadlineMs: config.toolTimeoutMs ?? undefined })) listed.push(inReferenceOrder(name, resource as Record<string, unknown>, RESOURCE_KEYS));
    }
  }
  const key = templates ? 'resourceTemplates' : 'resources';
  return JSON.stringify(server === null ? { [key]: listed } : { server, [key]: listed });
}

// The reference serializes its own Resource and ResourceTemplate structs (rmcp), in their field
// order, whatever order the server sent; the server's name comes first.
const RESOURCE_KEYS = ['uri', 'name', 'title', 'description', 'mimeType', 'size'];
const TEMPLATE_KEYS = ['uriTemplate', 'name', 'title', 'description', 'mimeType'];

function inReferenceOrder(server: string, entry: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const ordered: Record<string, unknown> = { server };
  for (const key of keys) if (entry[key] !== undefined) ordered[key] = entry[key];
  for (const [key, value] of Object.entries(entry)) if (!(key in ordered)) ordered[key] = value;
  return ordered;
}
