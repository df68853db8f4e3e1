import { expect, test } from 'vitest';
import { LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import { IDLE } from '../../../../src/main/threads/thread-facts.js';
import { ZERO_USAGE } from '../../../../src/common/token-usage.js';
import { acceptTurn, describeThread } from '../../../helpers/loaded-thread-events.js';
import type { ThreadId } from '../../../../src/common/thread-id.js';

test('a loaded thread is idle with the shared idle status and makes its mailbox once, on first use', async () => {
  const thread = new LoadedThread('t' as ThreadId, 0);
  expect(thread.status).toBe(IDLE);
  expect(Object.isFrozen(IDLE)).toBe(true);
  expect(thread.mailbox).toBe(thread.mailbox);
  expect(await Promise.all([thread.mailbox.post(() => 1), thread.mailbox.post(() => 2)])).toEqual([1, 2]);
});

test('turnOrdinal and itemOrdinal read the positions of resumed turns and those the live events noted since, by index, one at a time', () => {
  const thread = new LoadedThread('t' as ThreadId, 0);
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
  expect(new LoadedThread('u' as ThreadId, 0).turnOrdinal(0)).toBeNull();
});

test('a turn\'s events, in the order the actor sends them, build the mirrored turn and the thread\'s status', () => {
  const thread = new LoadedThread('t' as ThreadId, 0);
  describeThread(thread);
  acceptTurn(thread, 'turn-1', 5);
  const accepted = { status: thread.status, pendingTurns: thread.pendingTurns, runningTurnId: thread.runningTurnId, updatedAtMs: thread.updatedAtMs };
  thread.turnStarted('turn-1', 7_000, 2);
  const started = { status: thread.status, runningTurnId: thread.runningTurnId };
  const user = { type: 'userMessage', id: 'u', clientId: null, content: [], startedAtMs: 7_000, completedAtMs: 7_000 } as const;
  const agent = (text: string) => ({ type: 'agentMessage', id: 'a', text, phase: null, memoryCitation: null, startedAtMs: 7_100, completedAtMs: null }) as never;
  thread.userItemRecorded('turn-1', user as never, 3);
  thread.agentItemStarted('turn-1', agent(''));
  thread.agentDeltaAppended('turn-1', 'Hel');
  thread.agentDeltaAppended('turn-1', 'lo');
  const streamed = (thread.turns[0]!.items[1] as { text: string }).text;
  thread.agentItemCompleted('turn-1', agent('Hello'), 4);
  const usage = { total: ZERO_USAGE, last: ZERO_USAGE, modelContextWindow: 1 };
  thread.tokenUsageUpdated(usage);
  const ended = thread.turnEnded('turn-1', { status: 'completed', error: null, completedAtMs: 9_500, durationMs: 2_500 }, 9_600);
  expect({ accepted, started, streamed, ended, thread: { status: thread.status, pendingTurns: thread.pendingTurns, runningTurnId: thread.runningTurnId, inactiveSince: thread.inactiveSince, lastTokenUsage: thread.lastTokenUsage }, ordinals: [thread.turnOrdinal(0), thread.itemOrdinal(0, 0), thread.itemOrdinal(0, 1)] }).toEqual({
    accepted: { status: IDLE, pendingTurns: 1, runningTurnId: null, updatedAtMs: 5 },
    started: { status: { type: 'active', activeFlags: [] }, runningTurnId: 'turn-1' },
    streamed: 'Hello',
    ended: { id: 'turn-1', rootTurnId: 'turn-1', items: [user, agent('Hello')], itemsView: 'notLoaded', status: 'completed', error: null, startedAt: 7, completedAt: 9, durationMs: 2_500 },
    thread: { status: IDLE, pendingTurns: 0, runningTurnId: null, inactiveSince: 9_600, lastTokenUsage: usage },
    ordinals: [2, 3, 4],
  });
  // An end reported twice (the actor's, then a local failure) changes nothing the second time.
  expect(thread.turnEnded('turn-1', { status: 'failed', error: null, completedAtMs: 10_000, durationMs: 1 }, 10_000)).toBeNull();
  expect([thread.turns[0]!.status, thread.status]).toEqual(['completed', IDLE]);
});

test('a failed turn leaves the thread in systemError; one that ends while another is pending keeps it active', () => {
  const thread = new LoadedThread('t' as ThreadId, 0);
  describeThread(thread);
  acceptTurn(thread, 'turn-1');
  acceptTurn(thread, 'turn-2');
  thread.turnStarted('turn-1', 1_000, null);
  thread.turnEnded('turn-1', { status: 'interrupted', error: null, completedAtMs: 2_000, durationMs: 1_000 }, 2_000);
  const afterFirst = { status: thread.status, pendingTurns: thread.pendingTurns };
  thread.turnStarted('turn-2', 2_000, null);
  const error = { message: 'boom', codexErrorInfo: 'other', additionalDetails: null, misalignment: null } as const;
  thread.turnEnded('turn-2', { status: 'failed', error, completedAtMs: 3_000, durationMs: 1_000 }, 3_000);
  expect({ afterFirst, status: thread.status, pendingTurns: thread.pendingTurns, error: thread.turns[1]!.error }).toEqual({
    afterFirst: { status: { type: 'active', activeFlags: [] }, pendingTurns: 1 },
    status: { type: 'systemError' },
    pendingTurns: 0,
    error,
  });
});
