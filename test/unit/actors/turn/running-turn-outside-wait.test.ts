// A running turn waiting for an answer from outside it (a client's tool result, an approval):
// the answer comes back as it was given, an interrupt or a lost writer lock ends the wait as
// 'interrupted', and no wait leaves a listener on the turn's signal behind.
import { getEventListeners } from 'node:events';
import { expect, test } from 'vitest';
import { openHistoryBackend } from '../../../../src/actors/history/open-history-backend.js';
import { createModelClient } from '../../../../src/actors/model-client-factory.js';
import { legacyFormat } from '../../../../src/actors/rollout-writer/legacy-format.js';
import { RunningTurn } from '../../../../src/actors/turn/running-turn.js';
import { ThreadState } from '../../../../src/actors/turn/thread-state.js';
import type { ActorEvent } from '../../../../src/common/actor-messages.js';
import { WriteFence } from '../../../../src/common/write-fence.js';
import { ephemeralActorInit } from '../../../helpers/actor-init.js';

// Only the outside wait is under test: the turn never samples.
class WaitingTurn extends RunningTurn {
  async run(): Promise<void> {}

  /** As a turn does before each sampling after the first. */
  nextWait(): void {
    this.renewAbort();
  }
}

function openTurn(interrupted = false): { turn: WaitingTurn; events: ActorEvent[] } {
  const init = ephemeralActorInit('t');
  const events: ActorEvent[] = [];
  const emit = (event: ActorEvent) => events.push(event);
  const backend = openHistoryBackend(null, { threadId: 't', fence: new WriteFence(init.fence), writerLease: null, diskFaults: null, serializeHistory: false, emit, revoked: () => null });
  const thread = new ThreadState({
    threadId: 't',
    session: init.session,
    emit,
    clock: { now: () => 1_000 },
    model: createModelClient(init.provider, init.userAgent, init.session.originator),
    backend,
    format: legacyFormat,
    materialized: false,
    turnWritten: () => undefined,
  });
  const turn = new WaitingTurn(thread, { turnId: 'turn-1', settings: init.settings, userText: 'hi', interrupted, movesReadState: true });
  return { turn, events };
}

const never = <T>() => new Promise<T>(() => undefined);

test('an outside wait resolves with the answer and leaves nothing on the signal', async () => {
  const { turn, events } = openTurn();
  const answer = await turn.awaitOutside(Promise.resolve({ tool: 'shell', output: 'ok' }));
  expect({ answer, listeners: getEventListeners(turn.signal, 'abort').length, interruptedNow: turn.interrupt(), events }).toEqual({
    answer: { tool: 'shell', output: 'ok' },
    listeners: 0,
    // Nothing is waited for after the answer came: an interrupt cuts nothing short.
    interruptedNow: false,
    events: [],
  });
});

test('an interrupt ends an outside wait as interrupted', async () => {
  const { turn, events } = openTurn();
  const waiting = turn.awaitOutside(never<string>());
  const interrupting = turn.interrupt();
  const outcome = await waiting;
  expect({ interrupting, outcome, interrupted: turn.interrupted, aborted: turn.signal.aborted, listeners: getEventListeners(turn.signal, 'abort').length, events }).toEqual({
    interrupting: true,
    outcome: 'interrupted',
    interrupted: true,
    aborted: true,
    listeners: 0,
    events: [],
  });
});

test('an interrupt between two waits ends the next one before it starts, past the fresh abort of a new sampling', async () => {
  const { turn } = openTurn();
  expect(await turn.awaitOutside(Promise.resolve('answered'))).toBe('answered');
  const cutShort = turn.interrupt();
  turn.nextWait();
  expect({ cutShort, aborted: turn.signal.aborted, next: await turn.awaitOutside(never<string>()), listeners: getEventListeners(turn.signal, 'abort').length }).toEqual({
    cutShort: false,
    aborted: true,
    next: 'interrupted',
    listeners: 0,
  });
});

test('a lost writer lock ends an outside wait, and a later one at once', async () => {
  const { turn } = openTurn();
  const waiting = turn.awaitOutside(never<string>());
  turn.stop();
  const outcomes = [await waiting, await turn.awaitOutside(Promise.resolve('late'))];
  expect({ outcomes, interrupted: turn.interrupted, listeners: getEventListeners(turn.signal, 'abort').length }).toEqual({
    outcomes: ['interrupted', 'interrupted'],
    interrupted: false,
    listeners: 0,
  });
});

test('a turn interrupted before it began does not wait at all', async () => {
  const { turn } = openTurn(true);
  expect(await turn.awaitOutside(never<string>())).toBe('interrupted');
  expect(getEventListeners(turn.signal, 'abort').length).toBe(0);
});

test('an answer that fails fails the wait, and leaves nothing on the signal', async () => {
  const { turn } = openTurn();
  await expect(turn.awaitOutside(Promise.reject(new Error('the client went away')))).rejects.toThrow(new Error('the client went away'));
  expect({ listeners: getEventListeners(turn.signal, 'abort').length, interruptedNow: turn.interrupt() }).toEqual({ listeners: 0, interruptedNow: false });
});
