// The records a compaction adds to a rollout, as codex 0.171.0 writes them after its
// `task_started` and `token_count` (test/fixtures/reference-answers/compaction-rollout.jsonl):
//
//   response_item(assistant summary, metadata.compaction_output)  compacted{message, replacement_history}
//   item_completed(ContextCompaction)  task_complete(last_agent_message null)
//
// `replacement_history` is the conversation the model sees from then on, as response items;
// the reference also keeps its injected context (instructions, environment) there, which this
// host does not send to the model, so it is left out. Both history formats take these records.
import type { ContextCompactionItem, ConversationMessage } from '../../common/wire-types.js';
import { isSummaryMessage } from '../../common/rollout/compaction.js';
import { line } from './record-line.js';
import type { FormattedLines } from './rollout-format.js';

/** The summary as sampled, the conversation it leaves, and the turn's item. */
export interface CompactionRecord {
  threadId: string;
  turnId: string;
  summaryItemId: string;
  summaryText: string;
  /** The conversation after the compaction; its last message is the summary. */
  conversation: readonly ConversationMessage[];
  item: ContextCompactionItem;
}

/** The lines that record a compaction; the item_completed anchors the item for paged reads. */
export function compactionLines(record: CompactionRecord, nowMs: number): FormattedLines {
  const { threadId, turnId, item } = record;
  const summary = record.conversation.at(-1)!.text;
  return {
    lines: [
      // The record's own `metadata` (beside its payload) marks the summary as the compaction's output.
      JSON.stringify({
        timestamp: new Date(nowMs).toISOString(),
        type: 'response_item',
        payload: {
          type: 'message',
          id: record.summaryItemId,
          role: 'assistant',
          content: [{ type: 'output_text', text: record.summaryText }],
          internal_chat_message_metadata_passthrough: { turn_id: turnId, content_item_kinds: ['unknown'] },
        },
        metadata: { compaction_output: true },
      }),
      line('compacted', nowMs, { message: summary, replacement_history: record.conversation.map((message) => responseItem(message, turnId)) }),
      line('event_msg', nowMs, {
        type: 'item_completed',
        thread_id: threadId,
        turn_id: turnId,
        item: { type: 'ContextCompaction', id: item.id },
        started_at_ms: item.startedAtMs ?? nowMs,
        completed_at_ms: item.completedAtMs ?? nowMs,
      }),
    ],
    itemLine: 2,
  };
}

// A kept message in the reference's shape; its kind tells a reader the user's own words
// (`user.text`) from the summary (`compaction.summary`).
function responseItem(message: ConversationMessage, turnId: string): Record<string, unknown> {
  const assistant = message.role === 'assistant';
  const kind = assistant ? 'unknown' : isSummaryMessage(message.text) ? 'compaction.summary' : 'user.text';
  return {
    type: 'message',
    role: message.role,
    content: [{ type: assistant ? 'output_text' : 'input_text', text: message.text }],
    internal_chat_message_metadata_passthrough: { turn_id: turnId, content_item_kinds: [kind] },
  };
}
