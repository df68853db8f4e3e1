// One call of a tool the client brought: the item starts, `item/tool/call` goes to the
// thread's clients, and the first answer finishes the item and becomes the model's output.
// The wait is the turn's: an interrupt or the turn's end cancels the request (server-requests.ts).
import type { ToolAnswer, ToolCall } from '../../common/actor-messages.js';
import type { DynamicToolCallItem } from '../../common/wire-types.js';
import type { HostContext } from '../host-context.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import type { ClientAnswer } from '../server-requests/server-requests.js';
import { completedToolItem, decodeToolAnswer, toolOutputOf } from './dynamic-tool-answer.js';
import { outputIdOf } from './tool-output-id.js';
import { parsedArguments } from './tool-arguments.js';

/** Runs the call; `done` gets its answer, in the same task as the client's answer (or the cancellation). */
export function callDynamicTool(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, startedAtMs: number, done: (answer: ToolAnswer) => void): void {
  const started: DynamicToolCallItem = {
    type: 'dynamicToolCall',
    id: call.callId,
    namespace: call.namespace,
    tool: call.name,
    arguments: parsedArguments(call.input),
    status: 'inProgress',
    contentItems: null,
    success: null,
    durationMs: null,
    startedAtMs,
    completedAtMs: null,
  };
  thread.toolItemStarted(turnId, started);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/started', { item: started, threadId: thread.id, turnId, startedAtMs });
  const params = { threadId: thread.id, turnId, callId: call.callId, namespace: call.namespace, tool: call.name, arguments: started.arguments };
  ctx.serverRequests.send(thread.subscribers, 'item/tool/call', params, { threadId: thread.id, turnId }, (answer) => done(answered(ctx, thread, turnId, started, answer)));
}

function answered(ctx: HostContext, thread: LoadedThread, turnId: string, started: DynamicToolCallItem, answer: ClientAnswer): ToolAnswer {
  const call = { callId: started.id };
  const decoded = decodeToolAnswer(answer);
  if (decoded.problem !== null) ctx.log('warn', 'dynamic tool call failed', { threadId: thread.id, callId: call.callId, problem: decoded.problem });
  const completedAtMs = ctx.clock.now();
  const item = completedToolItem(started, decoded, completedAtMs);
  thread.toolItemCompleted(turnId, item);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/completed', { item, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs });
  const output = decoded.output === undefined ? toolOutputOf(item.contentItems ?? []) : { recorded: decoded.output, model: decoded.output };
  return {
    turnId,
    callId: call.callId,
    output: output.recorded,
    ...(output.model === output.recorded ? {} : { modelOutput: output.model }),
    outputId: outputIdOf(ctx),
    item,
    ...(decoded.output === undefined ? {} : { itemError: decoded.output }),
  };
}
