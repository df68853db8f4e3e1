import { expect, test } from 'vitest';
import { IDLE, LoadedThread } from '../../../../src/main/threads/loaded-thread.js';

test('a loaded thread has no ordinals until a position is noted, then keeps them by turn and item', () => {
  const thread = new LoadedThread('t', 0);
  expect([...thread.ordinals]).toEqual([]);
  thread.notePosition('turn-1', 4);
  thread.notePosition('turn-1', 7, 'item-1');
  thread.notePosition('turn-2', null);
  expect([...thread.ordinals].map(([turnId, known]) => [turnId, known.turn, [...known.items]])).toEqual([['turn-1', 4, [['item-1', 7]]]]);
  // Another thread's positions are its own.
  expect([...new LoadedThread('u', 0).ordinals]).toEqual([]);
});

test('a loaded thread is idle with the shared idle status and makes its mailbox once, on first use', async () => {
  const thread = new LoadedThread('t', 0);
  expect(thread.status).toBe(IDLE);
  expect(Object.isFrozen(IDLE)).toBe(true);
  expect(thread.mailbox).toBe(thread.mailbox);
  expect(await Promise.all([thread.mailbox.post(() => 1), thread.mailbox.post(() => 2)])).toEqual([1, 2]);
});

test('turnOrdinal and itemOrdinal read the positions remembered from a resume and noted since, one at a time', () => {
  const thread = new LoadedThread('t', 0);
  const item = (id: string) => ({ type: 'agentMessage', id, text: 'x', phase: null, memoryCitation: null, startedAtMs: null, completedAtMs: null });
  thread.turns.push(
    { id: 'turn-1', items: [item('a'), item('b')], status: 'completed', error: null, startedAt: null, completedAt: null, durationMs: null } as never,
    { id: 'turn-2', items: [item('c')], status: 'completed', error: null, startedAt: null, completedAt: null, durationMs: null } as never,
  );
  thread.rememberPositions(thread.turns, [{ ordinal: 3, items: [5, null] }]);
  thread.notePosition('turn-2', 9, 'c');
  const each = thread.turns.map((turn, i) => ({ ordinal: thread.turnOrdinal(i), items: turn.items.map((_, j) => thread.itemOrdinal(i, j)) }));
  expect(each).toEqual([
    { ordinal: 3, items: [5, null] },
    { ordinal: null, items: [9] },
  ]);
  expect([thread.turnOrdinal(2), thread.itemOrdinal(0, 2)]).toEqual([null, null]);
});
