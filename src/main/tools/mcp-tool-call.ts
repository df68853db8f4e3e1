// One call of an MCP server's tool, as the reference (codex 0.171.0, probed: docs/tools.md)
// makes it: the `mcpToolCall` item starts; the call is approved (a read-only tool, or a server
// whose tools are approved in its config), refused (approval policy never), or asked of the
// client as an `mcpServer/elicitation/request`; it runs on the host's shared session under the
// server's tool timeout; the item completes with the result or the error, and the model is
// given "Wall time: … Output:" and the content as text parts.
import type { ToolAnswer, ToolCall } from '../../common/actor-messages.js';
import type { McpToolCallItem } from '../../common/wire-types.js';
import type { HostContext } from '../host-context.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import { approveMcpCall, type McpApproval } from './mcp-approval.js';
import { failureParts } from './mcp-failure.js';
import type { McpToolTarget } from './thread-mcp.js';
import { outputIdOf } from './tool-output-id.js';
import { argumentsObject, parsedArguments } from './tool-arguments.js';

/** Runs the call; `done` gets its answer. Never throws. */
export function callMcpTool(
  ctx: HostContext,
  thread: LoadedThread,
  turnId: string,
  call: ToolCall,
  target: McpToolTarget,
  startedAtMs: number,
  done: (answer: ToolAnswer) => void,
): void {
  const args = parsedArguments(call.input);
  const readOnlyHint = typeof target.tool.annotations?.readOnlyHint === 'boolean' ? target.tool.annotations.readOnlyHint : null;
  const started: McpToolCallItem = {
    type: 'mcpToolCall', id: call.callId, server: target.server.name, environmentId: null, tool: call.name, status: 'inProgress',
    arguments: args, appContext: null, mcpAppUi: null, pluginId: null, readOnlyHint, result: null, error: null,
    durationMs: null, startedAtMs, completedAtMs: null,
  };
  thread.toolItemStarted(turnId, started);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/started', { item: started, threadId: thread.id, turnId, startedAtMs });
  const finish = (outcome: Pick<McpToolCallItem, 'status' | 'result' | 'error'>, ranMs: number): void => {
    const completedAtMs = ctx.clock.now();
    const item: McpToolCallItem = { ...started, ...outcome, durationMs: ranMs, completedAtMs };
    thread.toolItemCompleted(turnId, item);
    ctx.outgoing.notifyMany(thread.subscribers, 'item/completed', { item, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs });
    // The wall time is the whole call's, an approval's wait included; the item's duration is the run's.
    const wall = `Wall time: ${((completedAtMs - startedAtMs) / 1000).toFixed(4)} seconds\nOutput:`;
    const parts = outcome.error !== null ? [textPart(outcome.error.message)] : (outcome.result?.content ?? []).map(contentPart);
    const output = [textPart(wall), ...parts];
    done({ turnId, callId: call.callId, output, outputId: outputIdOf(ctx), item });
  };
  const refused = (message: string): void => finish({ status: 'failed', result: null, error: { message } }, 0);
  approveMcpCall(ctx, thread, turnId, target, readOnlyHint, args, (approval: McpApproval) => {
    if (approval.kind === 'refused') {
      refused(approval.message);
      return;
    }
    const ranFrom = ctx.clock.now();
    const argsObject = argumentsObject(args);
    target.hub
      .callTool(target.lease, call.name, argsObject, { deadlineMs: target.server.toolTimeoutMs ?? undefined })
      .then(
        (result) => {
          const { content, structuredContent, _meta } = result;
          finish({ status: result.isError === true ? 'failed' : 'completed', result: { content, structuredContent, _meta }, error: null }, ctx.clock.now() - ranFrom);
        },
        (error: unknown) => finish({ status: 'failed', result: null, error: { message: callErrorText(error) } }, ctx.clock.now() - ranFrom),
      );
  });
}

/** The reference's `tool call error: {:#?}` of an anyhow chain: the context, then "Caused by:". */
function callErrorText(error: unknown): string {
  const parts = failureParts(error);
  // Every line of the cause is indented, as anyhow's alternate form indents it.
  if (parts !== null) return `tool call error: ${parts.context}\n\nCaused by:\n    ${parts.cause.replaceAll('\n', '\n    ')}`;
  return `tool call error: ${error instanceof Error ? error.message : String(error)}`;
}

function textPart(text: string): { type: 'input_text'; text: string } {
  return { type: 'input_text', text };
}

// A content block as the model is given it: its text; an image as a data URL, which the worker
// prepares as it prepares a prompt's (probed: resized, its media type the bytes'); any other
// block as JSON.
function contentPart(block: unknown): unknown {
  const value = block as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
  if (value.type === 'text' && typeof value.text === 'string') return textPart(value.text);
  if (value.type === 'image' && typeof value.data === 'string' && typeof value.mimeType === 'string') {
    return { type: 'input_image', image_url: `data:${value.mimeType};base64,${value.data}` };
  }
  return textPart(JSON.stringify(block));
}
