import { describe, expect, test } from 'vitest';
import type { CoordinationHold } from '../../../../src/main/store/files/locks/flock/coordination-lock.js';
import { CoordinationPoller, type PollOutcome } from '../../../../src/main/store/files/locks/coordination-poller.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

/** A coordination lock that is free or held "by another process", counting attempts. */
class FakeCoordination {
  state: 'free' | 'held' = 'free';
  attemptTimes: number[] = [];
  holds = 0;
  inside = false;
  constructor(private readonly clock: FakeClock) {}
  tryEnter = (): CoordinationHold | undefined => {
    this.attemptTimes.push(this.clock.now());
    if (this.state === 'held') return undefined;
    this.holds += 1;
    this.inside = true;
    return { exit: () => (this.inside = false) };
  };
}

function setup(pollIntervalMs = 50) {
  const clock = new FakeClock();
  const coordination = new FakeCoordination(clock);
  const poller = new CoordinationPoller({ clock, pollIntervalMs, tryEnter: coordination.tryEnter });
  return { clock, coordination, poller };
}

/**
 * Records a promise's outcome and the fake time when its continuation ran. Timers fire inside
 * `advance`, so advance exactly to the expected instant before flushing.
 */
function track<T>(promise: Promise<T>, clock: FakeClock) {
  const seen: { value?: T; error?: unknown; at?: number } = {};
  promise.then(
    (value) => Object.assign(seen, { value, at: clock.now() }),
    (error: unknown) => Object.assign(seen, { error, at: clock.now() }),
  );
  return seen;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CoordinationPoller', () => {
  test('an uncontended acquisition is served synchronously under coordination and arms no timer', async () => {
    const { clock, coordination, poller } = setup();
    const outcome = poller.enqueue(() => (coordination.inside ? 'served inside' : 'served outside'), 30_000);
    expect(poller.pendingCount()).toBe(0);
    expect(clock.timersSet).toBe(0);
    expect(coordination.inside).toBe(false);
    await expect(outcome).resolves.toEqual({ kind: 'served', value: 'served inside' });
  });

  test('while contended it retries every poll interval and serves on the first attempt after release', async () => {
    const { clock, coordination, poller } = setup();
    coordination.state = 'held';
    const seen = track(poller.enqueue(() => 'lock', 30_000), clock);
    clock.advance(149);
    expect(coordination.attemptTimes).toEqual([0, 50, 100]);
    coordination.state = 'free';
    clock.advance(1);
    await flush();
    expect(coordination.attemptTimes).toEqual([0, 50, 100, 150]);
    expect(seen).toEqual({ value: { kind: 'served', value: 'lock' }, at: 150 });
    expect(clock.activeTimers()).toBe(0);
  });

  test('honours a configured poll interval', () => {
    const { clock, coordination, poller } = setup(/*pollIntervalMs*/ 20);
    coordination.state = 'held';
    void poller.enqueue(() => 'lock', 100).catch(() => {});
    clock.advance(100);
    expect(coordination.attemptTimes).toEqual([0, 20, 40, 60, 80, 100]);
  });

  test('each acquisition times out at its own deadline, not at the next poll tick', async () => {
    const { clock, coordination, poller } = setup();
    coordination.state = 'held';
    const short = track(poller.enqueue(() => 'short', 120), clock);
    const long = track(poller.enqueue(() => 'long', 1_000), clock);
    clock.advance(119);
    await flush();
    expect(short).toEqual({});
    clock.advance(1);
    await flush();
    expect(short).toEqual({ value: { kind: 'timedOut' }, at: 120 });
    expect(poller.pendingCount()).toBe(1);
    coordination.state = 'free';
    clock.advance(30);
    await flush();
    expect(long).toEqual({ value: { kind: 'served', value: 'long' }, at: 150 });
    expect(coordination.attemptTimes).toEqual([0, 50, 100, 120, 150]);
  });

  test('a shorter deadline that joins a waiting batch re-arms the timer so it is not late', async () => {
    const { clock, coordination, poller } = setup();
    coordination.state = 'held';
    void poller.enqueue(() => 'first', 30_000).catch(() => {});
    clock.advance(10);
    const quick = track(poller.enqueue(() => 'quick', 5), clock);
    expect(clock.activeTimers()).toBe(1);
    clock.advance(5);
    await flush();
    expect(quick).toEqual({ value: { kind: 'timedOut' }, at: 15 });
    expect(coordination.attemptTimes).toEqual([0, 15]);
    poller.close();
  });

  test('a timeout of zero makes exactly one attempt', async () => {
    const { clock, coordination, poller } = setup();
    coordination.state = 'held';
    await expect(poller.enqueue(() => 'x', 0)).resolves.toEqual({ kind: 'timedOut' });
    expect(coordination.attemptTimes).toEqual([0]);
    expect(clock.timersSet).toBe(0);
  });

  test('eight waiting acquisitions share one timer and are all served under a single hold', async () => {
    const { clock, coordination, poller } = setup();
    coordination.state = 'held';
    const outcomes: Promise<PollOutcome<string>>[] = [];
    for (let index = 0; index < 8; index += 1) {
      outcomes.push(poller.enqueue(() => (coordination.inside ? `t${index}` : 'outside'), 30_000));
      expect(clock.activeTimers()).toBe(1);
    }
    expect(poller.pendingCount()).toBe(8);
    clock.advance(200);
    expect(clock.activeTimers()).toBe(1);
    coordination.state = 'free';
    clock.advance(50);
    expect(await Promise.all(outcomes)).toEqual(
      ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'].map((value) => ({ kind: 'served', value })),
    );
    expect(coordination.holds).toBe(1);
    expect(coordination.inside).toBe(false);
    expect(clock.timersSet).toBe(5);
    expect(clock.activeTimers()).toBe(0);
  });

  test('a serve that throws rejects only its own acquisition and coordination is still let go', async () => {
    const { poller, coordination } = setup();
    const failing = poller.enqueue(() => {
      throw new Error('EACCES opening thread file');
    }, 1_000);
    const fine = poller.enqueue(() => 'ok', 1_000);
    await expect(failing).rejects.toThrow('EACCES opening thread file');
    await expect(fine).resolves.toEqual({ kind: 'served', value: 'ok' });
    expect(coordination.inside).toBe(false);
  });

  test('an error entering coordination rejects the whole waiting batch', async () => {
    const clock = new FakeClock();
    const poller = new CoordinationPoller({
      clock,
      pollIntervalMs: 50,
      tryEnter: () => {
        throw new Error('EACCES: thread-writer-locks');
      },
    });
    await expect(poller.enqueue(() => 'x', 1_000)).rejects.toThrow('EACCES: thread-writer-locks');
    expect(poller.pendingCount()).toBe(0);
    expect(clock.activeTimers()).toBe(0);
  });

  test('close rejects waiting acquisitions, cancels the timer and refuses new ones', async () => {
    const { clock, coordination, poller } = setup();
    coordination.state = 'held';
    const waiting = poller.enqueue(() => 'x', 30_000);
    poller.close();
    await expect(waiting).rejects.toThrow('coordination poller is closed');
    expect(clock.activeTimers()).toBe(0);
    await expect(poller.enqueue(() => 'y', 30_000)).rejects.toThrow('coordination poller is closed');
    expect(coordination.attemptTimes).toEqual([0]);
  });

  test('a batch yields to the event loop after 1 ms of serving under one hold; the rest are served at once under the next', async () => {
    const fake = new FakeClock();
    // Serving an item takes 0.6 ms of this clock (a lock file created on a slow disk).
    let spent = 0;
    const clock = { now: () => fake.now() + spent, setTimeout: fake.setTimeout.bind(fake), clearTimeout: fake.clearTimeout.bind(fake) };
    const coordination = new FakeCoordination(fake);
    const poller = new CoordinationPoller({ clock, pollIntervalMs: 50, tryEnter: coordination.tryEnter });
    coordination.state = 'held';
    const servedUnderHold: number[] = [];
    const outcomes = [0, 1, 2, 3].map((i) =>
      poller.enqueue(() => {
        spent += 0.6;
        servedUnderHold.push(coordination.holds);
        return i;
      }, 30_000),
    );
    coordination.state = 'free';
    expect(fake.timersSet).toBe(1);
    // The poll at 50 ms serves two items under hold 1, then arms a 0 ms timer (a turn of the
    // event loop for everything else) that serves the other two under hold 2.
    fake.advance(50);
    expect([servedUnderHold, poller.pendingCount(), fake.timersSet, fake.activeTimers()]).toEqual([[1, 1, 2, 2], 0, 2, 0]);
    expect(await Promise.all(outcomes)).toEqual([0, 1, 2, 3].map((value) => ({ kind: 'served', value })));
  });
});
