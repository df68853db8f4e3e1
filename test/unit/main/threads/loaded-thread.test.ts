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
