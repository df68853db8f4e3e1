// The records of a tool call, as the reference writes them (codex 0.171.0, paginated):
//
//   response_item(function_call)  …  item_completed(DynamicToolCall…)  response_item(function_call_output)
//
// The call is recorded as the model made it, when it arrives; its finished item and its output
// when the host answers. A legacy history has no item_completed records, only the response items.
import type { ToolAnswer } from '../../common/actor-messages.js';
import type { ToolCallItem } from '../../common/wire-types.js';
import { event, line } from './record-line.js';
import { coreCommandItem } from '../../common/rollout/command-execution-items.js';
import { coreFileChangeItem } from '../../common/rollout/file-change-items.js';

/** `response_item` of the model's call, in the reference's key order, with the turn it belongs to. */
export function toolCallLine(raw: Record<string, unknown>, turnId: string, nowMs: number): string {
  const namespace = typeof raw.namespace === 'string' ? { namespace: raw.namespace } : {};
  const call =
    raw.type === 'custom_tool_call'
      ? { type: 'custom_tool_call', id: raw.id, call_id: raw.call_id, name: raw.name, input: raw.input }
      : { type: 'function_call', id: raw.id, name: raw.name, ...namespace, arguments: raw.arguments, call_id: raw.call_id };
  return line('response_item', nowMs, { ...call, internal_chat_message_metadata_passthrough: { turn_id: turnId } });
}

/** `response_item` of what the model is given back. */
export function toolOutputLine(answer: ToolAnswer, turnId: string, nowMs: number): string {
  return line('response_item', nowMs, {
    type: answer.outputType ?? 'function_call_output',
    id: answer.outputId,
    call_id: answer.callId,
    output: answer.output,
    internal_chat_message_metadata_passthrough: { turn_id: turnId, create_time: nowMs / 1000 },
  });
}

/** `event_msg/item_completed` of the call's finished item, in core spelling. */
export function toolItemCompletedLine(threadId: string, turnId: string, item: ToolCallItem, nowMs: number, error?: string, printed?: { stdout: string; stderr: string }): string {
  return event(nowMs, {
    type: 'item_completed',
    thread_id: threadId,
    turn_id: turnId,
    item: coreToolItem(item, error, printed),
    started_at_ms: item.startedAtMs ?? nowMs,
    completed_at_ms: item.completedAtMs ?? nowMs,
  });
}

/** A tool call's item as the reference's core `TurnItem` spells it (no namespace key when none). */
export function coreToolItem(item: ToolCallItem, error?: string, printed?: { stdout: string; stderr: string }): Record<string, unknown> {
  if (item.type === 'commandExecution') return coreCommandItem(item);
  if (item.type === 'fileChange') return coreFileChangeItem(item, printed);
  const duration = item.durationMs === null ? null : durationOf(item.durationMs);
  if (item.type === 'mcpToolCall') {
    // The reference's McpToolCall record: camelCase hint, null members left out.
    const result = item.result === null ? null : {
      content: item.result.content,
      ...(item.result.structuredContent == null ? {} : { structuredContent: item.result.structuredContent }),
      ...(item.result._meta == null ? {} : { _meta: item.result._meta }),
    };
    return {
      type: 'McpToolCall',
      id: item.id,
      server: item.server,
      tool: item.tool,
      arguments: item.arguments,
      ...(item.readOnlyHint === null ? {} : { readOnlyHint: item.readOnlyHint }),
      status: item.status,
      ...(result === null ? {} : { result }),
      ...(item.error === null ? {} : { error: item.error }),
      duration,
    };
  }
  return {
    type: 'DynamicToolCall',
    id: item.id,
    ...(item.namespace === null ? {} : { namespace: item.namespace }),
    tool: item.tool,
    arguments: item.arguments,
    status: item.status,
    content_items: item.contentItems,
    success: item.success,
    ...(error === undefined ? {} : { error }),
    duration,
  };
}

/** Rust's `Duration` as serde writes it. */
function durationOf(ms: number): { secs: number; nanos: number } {
  return { secs: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}
