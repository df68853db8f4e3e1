import { expect, test } from 'vitest';
import { IDLE, LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import { acceptTurn } from '../../../helpers/loaded-thread-events.js';

test('a loaded thread is idle with the shared idle status and makes its mailbox once, on first use', async () => {
  const thread = new LoadedThread('t', 0);
  expect(thread.status).toBe(IDLE);
  expect(Object.isFrozen(IDLE)).toBe(true);
  expect(thread.mailbox).toBe(thread.mailbox);
  expect(await Promise.all([thread.mailbox.post(() => 1), thread.mailbox.post(() => 2)])).toEqual([1, 2]);
});

test('turnOrdinal and itemOrdinal read the positions of resumed turns and those the live events noted since, by index, one at a time', () => {
  const thread = new LoadedThread('t', 0);
  const item = (id: string) => ({ type: 'agentMessage', id, text: 'x', phase: null, memoryCitation: null, startedAtMs: null, completedAtMs: null });
  const turn = (id: string, items: string[]) => ({ id, items: items.map(item), status: 'completed', error: null, startedAt: null, completedAt: null, durationMs: null }) as never;
  // None known yet: nothing is allocated for them.
  expect([thread.turnOrdinal(0), thread.itemOrdinal(0, 0)]).toEqual([null, null]);
  thread.resumedTurnsDecoded([turn('turn-1', ['a', 'b'])], [{ ordinal: 3, items: [5, null] }]);
  thread.resumedTurnsDecoded([turn('turn-2', ['c'])], [{ ordinal: null, items: [null] }]);
  // A live turn, its record's ordinal and then its items'; nulls and unknown turns are ignored.
  acceptTurn(thread, 'turn-3');
  thread.turnStarted('turn-3', 0, 11);
  thread.userItemRecorded('turn-3', item('d') as never, null);
  thread.userItemRecorded('turn-3', item('e') as never, 13);
  // A resumed turn's agent message completed again (its position is noted too).
  thread.agentItemCompleted('turn-2', item('c') as never, 9);
  expect(thread.turnStarted('turn-9', 0, 20)).toBeUndefined();
  thread.userItemRecorded('turn-9', item('f') as never, 21);
  const each = thread.turns.map((t, i) => ({ ordinal: thread.turnOrdinal(i), items: (t as { items: unknown[] }).items.map((_, j) => thread.itemOrdinal(i, j)) }));
  expect(each).toEqual([
    { ordinal: 3, items: [5, null] },
    { ordinal: null, items: [9] },
    { ordinal: 11, items: [null, 13] },
  ]);
  expect([thread.turnOrdinal(3), thread.itemOrdinal(0, 2)]).toEqual([null, null]);
  // Another thread's positions are its own.
  expect(new LoadedThread('u', 0).turnOrdinal(0)).toBeNull();
});
