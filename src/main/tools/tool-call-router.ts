// Where a model's tool call goes, on the main thread: a tool the client brought becomes an
// `item/tool/call` request to the thread's clients; a name the thread does not have is
// answered as the reference answers it. Whatever runs the call, the answer goes back to the
// actor (`answerTool`), which records it and samples again; nothing here blocks the request
// path, and a call waits only on its own answer. A tool of the thread's MCP servers runs on
// the host's shared session (mcp-tool-call.ts).
import type { ToolAnswer, ToolCall } from '../../common/actor-messages.js';
import type { HostContext } from '../host-context.js';
import { outputIdOf } from './tool-output-id.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import { callDynamicTool } from './dynamic-tool-call.js';
import { findDynamicTool } from './dynamic-tool-specs.js';
import { callMcpTool } from './mcp-tool-call.js';
import { callMcpResourceTool, isMcpResourceCall, MCP_RESOURCE_TOOLS } from './mcp-resource-tools.js';
import { dynamicToolsOf } from './thread-tools.js';
import { isHostTool, offersHostTool } from './shell/shell-tool-specs.js';

/** Runs one tool call of `thread`'s turn `turnId` and answers the actor. */
export function routeToolCall(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number): void {
  const spec = call.kind === 'function' ? findDynamicTool(dynamicToolsOf(thread.settings), call.namespace, call.name) : undefined;
  if (spec !== undefined) {
    callDynamicTool(ctx, thread, turnId, call, startedAtMs, (answer) => answerActor(ctx, thread, answer));
    return;
  }
  if (call.namespace === null && offersHostTool(thread.settings?.tools ?? [], call.name)) {
    // Loaded on the first call: it brings child_process and the sandbox, which a start without
    // commands never needs before its first reply.
    void import('./shell/shell-tool-call.js').then(({ callShellTool }) => callShellTool(ctx, thread, turnId, call, startedAtMs, (answer) => answerActor(ctx, thread, answer)));
    return;
  }
  if (ctx.mcp.offersTools(thread.id) && isMcpResourceCall(call)) {
    callMcpResourceTool(ctx, thread, turnId, call, startedAtMs, (answer) => answerActor(ctx, thread, answer));
    return;
  }
  const mcp = call.kind === 'function' ? ctx.mcp.toolFor(thread.id, call.namespace, call.name) : undefined;
  if (mcp !== undefined) {
    callMcpTool(ctx, thread, turnId, call, mcp, startedAtMs, (answer) => answerActor(ctx, thread, answer));
    return;
  }
  // No item and no request: the model is told (namespace and name run together, as the
  // reference writes them), and samples again.
  answerActor(ctx, thread, { turnId, callId: call.callId, output: `unsupported call: ${call.namespace ?? ''}${call.name}`, outputId: outputIdOf(ctx), item: null });
}

/**
 * A turn asks for its tools with the host's MCP servers' among them (each server listed under
 * its startup deadline): the thread's whole list, in the reference's order (the command
 * tools, then the MCP namespaces, then the client's tools).
 */
export function answerHostTools(ctx: HostContext, thread: LoadedThread, turnId: string): void {
  void ctx.mcp.toolSpecs(thread.id).then((mcpTools) => {
    const offered = thread.settings?.tools ?? [];
    const builtIn = offered.filter(isHostTool);
    // The resource tools come right after the command tools, the servers' namespaces later, as the reference orders them.
    const tools = [...builtIn, ...MCP_RESOURCE_TOOLS, ...mcpTools, ...offered.filter((spec) => !isHostTool(spec))];
    const link = thread.lifecycle.kind === 'loaded' ? ctx.pool.linkOf(thread.id) : undefined;
    link?.api.answerHostTools(thread.id, turnId, tools).catch((error: unknown) =>
      ctx.log('warn', 'the host tools did not reach the actor', { threadId: thread.id, turnId, error: (error as Error).message }),
    );
  });
}

// The answer goes to the worker hosting the thread's actor; a thread that lost its actor in the
// meantime has already ended its turn, so there is nobody to tell.
function answerActor(ctx: HostContext, thread: LoadedThread, answer: ToolAnswer): void {
  const link = thread.lifecycle.kind === 'loaded' ? ctx.pool.linkOf(thread.id) : undefined;
  if (link === undefined) return;
  link.api.answerTool(thread.id, answer).catch((error: unknown) =>
    ctx.log('warn', 'a tool answer did not reach the actor', { threadId: thread.id, callId: answer.callId, error: (error as Error).message }),
  );
}
