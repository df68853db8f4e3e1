// A loaded thread's full history reuses what a cold resume serialized, and serializes only the
// turns run since: the bytes are exactly what serializing the whole history here would give.
import { describe, expect, test } from 'vitest';
import { fullTurns } from '../../../../src/common/rollout/history-view.js';
import type { HistoryMode } from '../../../../src/common/rollout/rollout-reader.js';
import type { AgentMessageItem, Turn, TurnId, UserMessageItem } from '../../../../src/common/wire-types.js';
import { EncodedJson } from '../../../../src/main/protocol/encoded-json.js';
import { fullHistory } from '../../../../src/main/threads/full-history.js';
import { LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import { acceptTurn, describeThread, resumeWithHistoryJson } from '../../../helpers/loaded-thread-events.js';
import type { ThreadId } from '../../../../src/common/thread-id.js';

const turnId = (k: number) => `01a23766-0000-7000-8000-0000000000${String(k).padStart(2, '0')}` as TurnId;
function user(k: number): UserMessageItem {
  return { type: 'userMessage', id: `u${k}`, clientId: null, content: [{ type: 'text', text: `turn ${k} ✓`, text_elements: [] }], startedAtMs: 1000 * k, completedAtMs: 1000 * k };
}
function agent(k: number): AgentMessageItem {
  return { type: 'agentMessage', moderation: null, id: `a${k}`, text: 'Done', phase: null, memoryCitation: null, delivery: null, questions: null, startedAtMs: 1000 * k + 5, completedAtMs: 1000 * k + 5 };
}
function turn(k: number, status: Turn['status'] = 'completed'): Turn {
  // Turns with one, two or three items, so legacy numbering depends on every turn before.
  const items = [user(k), agent(k), agent(k + 100)].slice(0, 1 + (k % 3));
  return { id: turnId(k), rootTurnId: turnId(k), items, itemsView: 'summary', status, error: null, startedAt: k, completedAt: k, durationMs: 5 };
}

/** What the pool worker sends: the resumed turns as fullTurns shows them, in UTF-8. */
const serialized = (mode: HistoryMode, turns: readonly Turn[]): Uint8Array => new Uint8Array(Buffer.from(JSON.stringify(fullTurns(mode, turns))));

const text = (history: Turn[] | EncodedJson): string => (history instanceof EncodedJson ? history.bytes.toString('utf8') : JSON.stringify(history));

describe.each(['legacy', 'paginated'] as const)('%s', (mode) => {
  test.each([0, 1, 4])('after a cold resume of %i turns and turns run since, the bytes are the whole history serialized here', (resumed) => {
    const thread = new LoadedThread('t' as ThreadId, 0);
    describeThread(thread, { historyMode: mode });
    thread.resumedTurnsDecoded(Array.from({ length: resumed }, (_, i) => turn(i + 1)), []);
    const kept = EncodedJson.of(serialized(mode, thread.turns));
    resumeWithHistoryJson(thread, { count: resumed, json: kept });
    const whole = () => JSON.stringify(fullTurns(mode, thread.turns));
    // Nothing run since: the worker's bytes themselves, not a copy.
    const first = fullHistory(thread);
    expect(first).toBe(kept);
    expect(text(first)).toBe(whole());
    for (let k = resumed + 1; k <= resumed + 3; k += 1) {
      acceptTurn(thread, turn(k));
      const history = fullHistory(thread);
      expect(text(history)).toBe(whole());
      // The kept bytes are sent in place, not copied into a new buffer with the turns since.
      if (resumed > 0) expect((history as EncodedJson).parts[0]!.buffer).toBe((first as EncodedJson).parts[0]!.buffer);
    }
  });
});

test('while the mirror is still being filled the kept bytes are the whole history; without them it is serialized here', () => {
  const thread = new LoadedThread('t' as ThreadId, 0);
  describeThread(thread, { historyMode: 'legacy' });
  const resumed = [turn(1), turn(2), turn(3)];
  const kept = EncodedJson.of(serialized('legacy', resumed));
  resumeWithHistoryJson(thread, { count: resumed.length, json: kept });
  // No turn mirrored yet, then some: a turn never runs before the fill ends.
  expect(fullHistory(thread)).toBe(kept);
  thread.resumedTurnsDecoded(resumed.slice(0, 2), []);
  expect(fullHistory(thread)).toBe(kept);

  const plain = new LoadedThread('u' as ThreadId, 0);
  describeThread(plain, { historyMode: 'legacy' });
  plain.resumedTurnsDecoded([turn(1), turn(2, 'inProgress')], []);
  expect(fullHistory(plain)).toEqual(fullTurns('legacy', plain.turns));
  expect(fullHistory(new LoadedThread('v' as ThreadId, 0))).toEqual([]);
});
