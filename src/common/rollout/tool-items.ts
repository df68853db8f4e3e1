// Tool calls as a rollout keeps them, read back: the `item_completed` of a call (core spelling)
// into the wire's item, and the response items of a call and its output into the conversation
// the model is replayed. Pure functions; the turn history builder decides where they go.
import type { ConversationMessage, DynamicToolContentItem, McpToolCallItem, ToolCallItem } from '../wire-types.js';
import { commandItemOf } from './command-execution-items.js';
import { fileChangeItemOf } from './file-change-items.js';
import type { Json } from './rollout-json.js';
import { num, obj, str } from './rollout-json.js';

/** A core `DynamicToolCall`, `McpToolCall`, `CommandExecution` or `FileChange` item as the wire shows it; null for any other item. */
export function toolItemOf(core: Json, id: string, startedAtMs: number | null, completedAtMs: number | null): ToolCallItem | null {
  if (core.type === 'McpToolCall') return mcpItemOf(core, id, startedAtMs, completedAtMs);
  if (core.type === 'CommandExecution') return commandItemOf(core, id, startedAtMs, completedAtMs);
  if (core.type === 'FileChange') return fileChangeItemOf(core, id, startedAtMs, completedAtMs);
  if (core.type !== 'DynamicToolCall') return null;
  const status = str(core.status);
  return {
    type: 'dynamicToolCall',
    id,
    namespace: str(core.namespace),
    tool: str(core.tool) ?? '',
    arguments: core.arguments ?? null,
    status: status === 'completed' || status === 'failed' ? status : 'inProgress',
    contentItems: Array.isArray(core.content_items) ? (core.content_items as DynamicToolContentItem[]) : null,
    success: typeof core.success === 'boolean' ? core.success : null,
    durationMs: durationMsOf(core),
    startedAtMs,
    completedAtMs,
  };
}

function mcpItemOf(core: Json, id: string, startedAtMs: number | null, completedAtMs: number | null): McpToolCallItem {
  const status = str(core.status);
  const result = obj(core.result);
  const error = obj(core.error);
  return {
    type: 'mcpToolCall',
    id,
    server: str(core.server) ?? '',
    environmentId: null,
    tool: str(core.tool) ?? '',
    status: status === 'completed' || status === 'failed' ? status : 'inProgress',
    arguments: core.arguments ?? null,
    appContext: null,
    mcpAppUi: null,
    pluginId: null,
    readOnlyHint: typeof core.readOnlyHint === 'boolean' ? core.readOnlyHint : null,
    result: result === null ? null : { content: Array.isArray(result.content) ? result.content : [], structuredContent: result.structuredContent ?? null, _meta: result._meta ?? null },
    error: error === null ? null : { message: str(error.message) ?? '' },
    durationMs: durationMsOf(core),
    startedAtMs,
    completedAtMs,
  };
}

/** A core item's `duration` (Rust's `Duration`) in whole milliseconds. */
function durationMsOf(core: Json): number | null {
  const duration = obj(core.duration);
  return duration === null ? null : Math.round((num(duration.secs) ?? 0) * 1000 + (num(duration.nanos) ?? 0) / 1_000_000);
}

const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'function_call_output', 'custom_tool_call_output']);

/** A tool call or its output, as the next request replays it (the harness's metadata left out); null for any other response item. */
export function toolConversationItem(p: Json): ConversationMessage | null {
  if (typeof p.type !== 'string' || !CALL_TYPES.has(p.type)) return null;
  const { internal_chat_message_metadata_passthrough: _metadata, ...item } = p;
  return { role: 'item', text: '', item };
}
