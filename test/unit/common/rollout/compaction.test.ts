// What a compaction keeps of a conversation, and how a compacted rollout is replayed.
import { expect, test } from 'vitest';
import { compactedConversation, isSummaryMessage, summaryMessage, SUMMARY_PREFIX } from '../../../../src/common/rollout/compaction.js';
import { parseRollout } from '../../../../src/common/rollout/rollout-reader.js';

test('the user messages are kept, newest first within the budget, earlier summaries dropped, the summary last', () => {
  const old = summaryMessage('an earlier summary');
  const kept = compactedConversation(
    [
      { role: 'user', text: 'a'.repeat(50_000) },
      { role: 'assistant', text: 'reply' },
      { role: 'user', text: old },
      { role: 'user', text: 'b'.repeat(40_000) },
      { role: 'user', text: 'c' },
    ],
    summaryMessage('now'),
  );
  // 80,000 bytes: "c", the 40,000 b's, then what is left of the a's (their start).
  expect(kept).toEqual([
    { role: 'user', text: 'a'.repeat(39_999) },
    { role: 'user', text: 'b'.repeat(40_000) },
    { role: 'user', text: 'c' },
    { role: 'user', text: `${SUMMARY_PREFIX}\nnow` },
  ]);
  expect([isSummaryMessage(old), isSummaryMessage('b')]).toEqual([true, false]);
});

const record = (type: string, payload: Record<string, unknown>, second: number) =>
  JSON.stringify({ timestamp: `2026-12-05T00:00:0${second}.000Z`, type, payload });
const user = (text: string, kind = 'user.text') => ({
  type: 'message', role: 'user', content: [{ type: 'input_text', text }], internal_chat_message_metadata_passthrough: { content_item_kinds: [kind] },
});

test('a compacted record replaces the conversation a resume replays, and its item joins its turn', () => {
  const text = [
    record('session_meta', { id: '01a24399-1643-7e23-8b8b-8640f54020ac', timestamp: '2026-12-05T00:00:00.000Z', cwd: '/', originator: 'x', cli_version: '0.171.0', source: 'vscode' }, 0),
    record('event_msg', { type: 'task_started', turn_id: 't1' }, 1),
    record('response_item', user('hello'), 1),
    record('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done' }] }, 1),
    record('event_msg', { type: 'task_complete', turn_id: 't1' }, 2),
    record('event_msg', { type: 'task_started', turn_id: 't2' }, 3),
    record('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'S' }] }, 3),
    record('compacted', {
      message: summaryMessage('S'),
      replacement_history: [user('<environment_context>x</environment_context>', 'environments.environment_context'), user('hello'), user(summaryMessage('S'), 'compaction.summary')],
    }, 3),
    record('event_msg', { type: 'item_completed', turn_id: 't2', item: { type: 'ContextCompaction', id: 'c1' }, started_at_ms: 3000, completed_at_ms: 3500 }, 3),
    record('event_msg', { type: 'task_complete', turn_id: 't2', last_agent_message: null }, 4),
    record('compacted', { message: 'older releases kept only the summary' }, 5),
  ].join('\n');
  const parsed = parseRollout(text);
  expect(parsed.turns[1]!.items).toEqual([{ type: 'contextCompaction', id: 'c1', startedAtMs: 3000, completedAtMs: 3500 }]);
  // The last record has no replacement history: the user's messages before it and its summary.
  expect(parsed.messages).toEqual([
    { role: 'user', text: 'hello' },
    { role: 'user', text: summaryMessage('older releases kept only the summary') },
  ]);
  expect(parseRollout(text.split('\n').slice(0, -1).join('\n')).messages).toEqual([
    { role: 'user', text: 'hello' },
    { role: 'user', text: summaryMessage('S') },
  ]);
});
