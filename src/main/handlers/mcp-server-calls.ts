// `mcpServer/tool/call` and `mcpServer/resource/read`: a client calls a tool, or reads a
// resource, of one of a loaded thread's MCP servers directly, on the host's shared session,
// answered as the reference answers (the MCP result as the server sent it; no item, no
// notification). These wait for the server, under its tool timeout: nothing here can be
// answered from memory.
import type { Connection } from '../connections.js';
import { invalidParams, invalidRequest } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { mcpResourceReadParams, mcpServerToolCallParams } from '../protocol/mcp-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { requireLoaded } from './loaded-turn-lookup.js';
import { failureParts } from '../tools/mcp-failure.js';
import { argumentsObject } from '../tools/tool-arguments.js';

type Params<D extends (value: unknown) => unknown> = ReturnType<D>;

export async function mcpServerToolCall(ctx: HostContext, _connection: Connection, params: Params<typeof mcpServerToolCallParams>): Promise<unknown> {
  const thread = requireLoaded(ctx, requireThreadId(params.threadId));
  const server = await serverOf(ctx, thread.id, params.server);
  const args = argumentsObject(params.arguments);
  try {
    const result = await server.hub.callTool(server.lease, params.tool, args, { deadlineMs: server.config.toolTimeoutMs ?? undefined });
    // The result as the server sent it: its optional members only where it had them.
    return {
      content: result.content,
      ...(result.structuredContent === null ? {} : { structuredContent: result.structuredContent }),
      ...(result.isError === null ? {} : { isError: result.isError }),
      ...(result._meta === null ? {} : { _meta: result._meta }),
    };
  } catch (error) {
    throw invalidRequest(error instanceof Error ? error.message : String(error));
  }
}

export async function mcpServerResourceRead(ctx: HostContext, _connection: Connection, params: Params<typeof mcpResourceReadParams>): Promise<unknown> {
  const thread = requireLoaded(ctx, requireThreadId(params.threadId));
  const server = await serverOf(ctx, thread.id, params.server);
  try {
    const result = await server.hub.readResource(server.lease, params.uri, { deadlineMs: server.config.toolTimeoutMs ?? undefined });
    return { contents: result.contents, originCallId: null };
  } catch (error) {
    // The server's refusal, as the reference passes it on ("MCP error -32602: …").
    throw invalidParams(serverErrorText(error));
  }
}

function serverErrorText(error: unknown): string {
  const cause = failureParts(error)?.cause ?? String(error);
  const coded = /^Mcp error: (-?\d+): (.*)$/s.exec(cause);
  if (coded === null) return cause;
  return coded[2]!.startsWith('MCP error') ? coded[2]! : `MCP error ${coded[1]}: ${coded[2]}`;
}

async function serverOf(ctx: HostContext, threadId: string, name: string) {
  const server = await ctx.mcp.serverOf(threadId, name);
  if (server === undefined) throw invalidRequest(`MCP server is not configured for this thread: ${name}`);
  return server;
}
