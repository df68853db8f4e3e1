import { describe, expect, test } from 'vitest';
import type { Clock } from '../../../../src/common/clock.js';
import { ThreadDirectory } from '../../../../src/main/threads/directory.js';
import type { ConnectionId } from '../../../../src/main/connections.js';
import { LoadedThread } from '../../../../src/main/threads/loaded-thread.js';
import { acceptTurn, completeTurn, describeThread } from '../../../helpers/loaded-thread-events.js';
import { Supervisor, type UnloadOutcome } from '../../../../src/main/threads/supervisor.js';
import { Unloader } from '../../../../src/main/threads/unloader.js';
import { settledWithin } from '../../../../src/common/deadline.js';
import { WriteFence } from '../../../../src/common/write-fence.js';
import type { ThreadId } from '../../../../src/common/thread-id.js';

// Distinct from every idle delay used below, so the actor-close deadline timers can be told
// apart from the supervisor's own sweep timer in the fake clock's log.
const CLOSE_TIMEOUT_MS = 2_345;

interface FakeTimer {
  at: number;
  fn: () => void;
}

/** A clock whose time moves only when the test says so; it records every timer it is asked for. */
class FakeClock implements Clock {
  #now = 0;
  #nextId = 1;
  readonly #timers = new Map<number, FakeTimer>();
  /** Every setTimeout call, as [fake time of the call, requested ms]. */
  readonly calls: { calledAt: number; ms: number }[] = [];

  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.calls.push({ calledAt: this.#now, ms });
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Moves time without firing anything (only before any timer is due). */
  set(now: number): void {
    this.#now = now;
  }
  /** Due instants of the timers still pending, sorted. */
  pending(): number[] {
    return [...this.#timers.values()].map((timer) => timer.at).sort((a, b) => a - b);
  }
  /** Sweep timers the supervisor armed (everything but actor-close deadlines), as due instants. */
  sweepTimersArmed(): number[] {
    return this.calls.filter((call) => call.ms !== CLOSE_TIMEOUT_MS).map((call) => call.calledAt + call.ms);
  }
  /**
   * Moves time to `target`, firing due timers in order at their own instants and letting
   * the promise continuations they start run before the next one fires.
   */
  async advanceTo(target: number): Promise<void> {
    for (;;) {
      let next: [number, FakeTimer] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= target && (next === undefined || entry[1].at < next[1].at)) next = entry;
      }
      if (next === undefined) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].at);
      next[1].fn();
      await flush();
    }
    this.#now = Math.max(this.#now, target);
    await flush();
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise the test settles by hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Records a promise's outcome and the fake time at which it settled. */
function track<T>(promise: Promise<T>, clock: FakeClock) {
  const seen: { value?: T; error?: unknown; at?: number } = {};
  promise.then(
    (value) => Object.assign(seen, { value, at: clock.now() }),
    (error: unknown) => Object.assign(seen, { error, at: clock.now() }),
  );
  return seen;
}

/** A directory that also records `remove` in the shared effect log. */
class RecordingDirectory extends ThreadDirectory {
  constructor(private readonly effects: string[]) {
    super();
  }
  override remove(thread: LoadedThread): boolean {
    const removed = super.remove(thread);
    this.effects.push(`directory.remove ${thread.id} ${removed}`);
    return removed;
  }
}

const id = (n: number) => `019a0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}` as ThreadId;
const conn = (n: number) => n as ConnectionId;

/** Stand-ins for the unload sequence's collaborators, named as the effects they record. */
interface FakeSteps {
  closeActor(thread: LoadedThread): Promise<unknown>;
  releaseLock(thread: LoadedThread): void;
}

function setup(options: Partial<FakeSteps> = {}) {
  const clock = new FakeClock();
  const effects: string[] = [];
  const logs: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const directory = new RecordingDirectory(effects);
  const steps: FakeSteps = {
    closeActor:
      options.closeActor ??
      (async (thread) => {
        effects.push(`closeActor ${thread.id}`);
      }),
    releaseLock:
      options.releaseLock ??
      ((thread) => {
        effects.push(`releaseLock ${thread.id}`);
      }),
  };
  const log = (level: string, message: string, fields: Record<string, unknown> = {}) => {
    logs.push({ level, message, fields });
  };
  const unloader = new Unloader({
    clock,
    directory,
    actorCloseTimeoutMs: CLOSE_TIMEOUT_MS,
    actors: {
      closeActor: (threadId) => steps.closeActor(directory.get(threadId)!),
      reportUnresponsive: (threadId) => {
        effects.push(`actorUnresponsive ${threadId}`);
      },
      unresponsiveReporter: (threadId) => () => {
        effects.push(`actorUnresponsive ${threadId}`);
      },
      fencedCloser: (threadId) => {
        const thread = directory.get(threadId)!;
        return () => {
          effects.push(`closeFenced ${threadId}`);
          return steps.closeActor(thread);
        };
      },
      forget: () => undefined,
    },
    locks: {
      release: (lock) => {
        steps.releaseLock(directory.get(lock.threadId)!);
        return 'unlinked';
      },
    },
    announcer: {
      broadcast: (method, params) => {
        if (method !== 'thread/closed') return;
        const thread = unloading.get((params as { threadId: string }).threadId)!;
        // What a client would see at this instant: the thread is gone from the listing.
        const listed = directory.page(null, null).data.includes(thread.id);
        effects.push(`announceUnloaded ${thread.id} ${thread.lifecycle.kind} listed=${listed}`);
      },
    },
    log,
  });
  // The announcer sees ids only, after the thread has left the directory.
  const unloading = new Map<string, LoadedThread>();
  const supervisor = new Supervisor({ clock, directory, unloader, log });

  /** A registered, listed thread in `loaded`, created at the current fake time. */
  function load(n: number, options: { delaySecs?: number | null; subscribers?: number[] } = {}): LoadedThread {
    const thread = new LoadedThread(id(n), clock.now());
    thread.writerLockTaken({ threadId: thread.id, released: false });
    unloading.set(thread.id, thread);
    describeThread(thread, { unloadDelaySecs: options.delaySecs === undefined ? 60 : options.delaySecs });
    for (const s of options.subscribers ?? []) thread.subscribe(conn(s));
    directory.register(thread);
    directory.list(thread);
    thread.published(clock.now());
    supervisor.noteChanged(thread);
    return thread;
  }

  const state = (thread: LoadedThread) => ({
    lifecycle: thread.lifecycle,
    listed: directory.page(null, null).data.includes(thread.id),
    registered: directory.get(thread.id) === thread,
  });

  return { clock, effects, logs, directory, supervisor, load, state };
}

/** The effects of one clean unload, in the required order. */
const cleanUnload = (threadId: string) => [
  `closeActor ${threadId}`,
  `releaseLock ${threadId}`,
  `directory.remove ${threadId} true`,
  `announceUnloaded ${threadId} unloaded listed=false`,
];

describe('idle unload scheduling', () => {
  test('an idle thread with no subscribers unloads exactly at the delay, not before', async () => {
    const { clock, effects, supervisor, load, state } = setup();
    const thread = load(1, { delaySecs: 60 });
    expect(supervisor.scheduledCount).toEqual(1);
    await clock.advanceTo(59_999);
    expect({ effects, state: state(thread) }).toEqual({
      effects: [],
      state: { lifecycle: { kind: 'loaded', since: 0 }, listed: true, registered: true },
    });
    await clock.advanceTo(60_000);
    expect({ effects, state: state(thread), scheduled: supervisor.scheduledCount }).toEqual({
      effects: cleanUnload(thread.id),
      state: { lifecycle: { kind: 'unloaded', reason: 'idle' }, listed: false, registered: false },
      scheduled: 0,
    });
  });

  test('the countdown starts when the last subscriber leaves', async () => {
    const { clock, effects, supervisor, load, state } = setup();
    const thread = load(1, { delaySecs: 60, subscribers: [7] });
    expect(supervisor.scheduledCount).toEqual(0);
    await clock.advanceTo(10_000);
    thread.unsubscribe(conn(7), clock.now());
    supervisor.noteChanged(thread);
    await clock.advanceTo(69_999);
    expect(effects).toEqual([]);
    await clock.advanceTo(70_000);
    expect({ effects, lifecycle: state(thread).lifecycle }).toEqual({
      effects: cleanUnload(thread.id),
      lifecycle: { kind: 'unloaded', reason: 'idle' },
    });
  });

  test('resubscribing before the deadline cancels the unload', async () => {
    const { clock, effects, supervisor, load, state } = setup();
    const thread = load(1, { delaySecs: 60 });
    await clock.advanceTo(30_000);
    thread.subscribe(conn(1));
    supervisor.noteChanged(thread);
    expect(supervisor.scheduledCount).toEqual(0);
    await clock.advanceTo(10 * 60_000);
    expect({ effects, state: state(thread) }).toEqual({
      effects: [],
      state: { lifecycle: { kind: 'loaded', since: 0 }, listed: true, registered: true },
    });
  });

  test('losing the last subscriber again starts a fresh countdown from that moment', async () => {
    const { clock, effects, supervisor, load } = setup();
    const thread = load(1, { delaySecs: 60 });
    await clock.advanceTo(30_000);
    thread.subscribe(conn(1));
    supervisor.noteChanged(thread);
    await clock.advanceTo(50_000);
    thread.unsubscribe(conn(1), clock.now());
    supervisor.noteChanged(thread);
    // Neither the first deadline (60 s) nor 60 s after the resubscribe (90 s) counts.
    await clock.advanceTo(109_999);
    expect(effects).toEqual([]);
    await clock.advanceTo(110_000);
    expect(effects).toEqual(cleanUnload(thread.id));
  });

  test('a running turn holds the thread; the countdown starts when the turn ends', async () => {
    const { clock, effects, supervisor, load } = setup();
    const thread = load(1, { delaySecs: 60 });
    acceptTurn(thread, 'turn-1', clock.now());
    supervisor.noteChanged(thread);
    expect(supervisor.scheduledCount).toEqual(0);
    await clock.advanceTo(100_000);
    completeTurn(thread, 'turn-1', clock.now());
    supervisor.noteChanged(thread);
    await clock.advanceTo(159_999);
    expect(effects).toEqual([]);
    await clock.advanceTo(160_000);
    expect(effects).toEqual(cleanUnload(thread.id));
  });

  test('a turn that starts after scheduling is re-checked at the deadline and keeps the thread', async () => {
    const { clock, effects, load } = setup();
    const thread = load(1, { delaySecs: 60 });
    // Activity the supervisor was not told about: the sweep must re-read the thread.
    acceptTurn(thread, 'turn-1', clock.now());
    await clock.advanceTo(120_000);
    expect({ effects, kind: thread.lifecycle.kind }).toEqual({ effects: [], kind: 'loaded' });
  });

  test('delay 0 starts the unload on the next tick, not synchronously and without waiting for a timer', async () => {
    const { clock, effects, supervisor, load } = setup();
    const thread = load(1, { delaySecs: 0, subscribers: [1] });
    await clock.advanceTo(5_000);
    thread.unsubscribe(conn(1), clock.now());
    supervisor.noteChanged(thread);
    expect({ effects, kind: thread.lifecycle.kind }).toEqual({ effects: [], kind: 'loaded' });
    // No fake time passes: the due work starts within this iteration of the event loop.
    await flush();
    expect({ effects, kind: thread.lifecycle.kind, now: clock.now(), sweepTimers: clock.sweepTimersArmed() }).toEqual({
      effects: cleanUnload(thread.id),
      kind: 'unloaded',
      now: 5_000,
      sweepTimers: [],
    });
  });

  test('many threads falling due in one event (a connection closing) all unload on the next tick', async () => {
    const { clock, supervisor, load } = setup();
    const threads = Array.from({ length: 50 }, (_, n) => load(n, { delaySecs: 0, subscribers: [9] }));
    for (const thread of threads) {
      thread.unsubscribe(conn(9), clock.now());
      supervisor.noteChanged(thread);
    }
    await flush();
    expect({
      kinds: [...new Set(threads.map((thread) => thread.lifecycle.kind))],
      sweepTimers: clock.sweepTimersArmed(),
      pending: clock.pending(),
    }).toEqual({ kinds: ['unloaded'], sweepTimers: [], pending: [] });
  });

  test('an immediate (delay 0) unload keeps the single timer of the threads still waiting', async () => {
    const { clock, effects, supervisor, load } = setup();
    const waiting = load(1, { delaySecs: 60 });
    const immediate = load(2, { delaySecs: 0, subscribers: [1] });
    immediate.unsubscribe(conn(1), clock.now());
    supervisor.noteChanged(immediate);
    await flush();
    expect({ unloaded: immediate.lifecycle.kind, pending: clock.pending() }).toEqual({ unloaded: 'unloaded', pending: [60_000] });
    await clock.advanceTo(60_000);
    expect({ kind: waiting.lifecycle.kind, announced: effects.filter((effect) => effect.startsWith('announce')).length }).toEqual({
      kind: 'unloaded',
      announced: 2,
    });
  });

  test('a subscribed idle thread never unloads, even with delay 0', async () => {
    const { clock, effects, supervisor, load } = setup();
    load(1, { delaySecs: 0, subscribers: [1] });
    expect({ scheduled: supervisor.scheduledCount, pending: clock.pending() }).toEqual({ scheduled: 0, pending: [] });
    await clock.advanceTo(3_600_000);
    expect(effects).toEqual([]);
  });

  test('a null delay never unloads', async () => {
    const { clock, effects, supervisor, load } = setup();
    load(1, { delaySecs: null });
    expect({ scheduled: supervisor.scheduledCount, pending: clock.pending() }).toEqual({ scheduled: 0, pending: [] });
    await clock.advanceTo(3_600_000);
    expect(effects).toEqual([]);
  });

  test('a thread still loading is not scheduled', () => {
    const { clock, supervisor } = setup();
    const thread = new LoadedThread(id(1), 0);
    describeThread(thread, { unloadDelaySecs: 0 });
    supervisor.noteChanged(thread);
    expect({ scheduled: supervisor.scheduledCount, pending: clock.pending() }).toEqual({ scheduled: 0, pending: [] });
  });
});

describe('one timer for all threads', () => {
  test('a hundred idle threads arm a single timer, for the earliest deadline', () => {
    const { clock, supervisor, load } = setup();
    for (let n = 0; n < 100; n += 1) {
      clock.set(n * 10);
      load(n, { delaySecs: 60 });
    }
    expect({ setTimeoutCalls: clock.calls, pending: clock.pending(), scheduled: supervisor.scheduledCount }).toEqual({
      setTimeoutCalls: [{ calledAt: 0, ms: 60_000 }],
      pending: [60_000],
      scheduled: 100,
    });
  });

  test('when a new thread is due earlier, the single timer is moved rather than a second one added', async () => {
    const { clock, load } = setup();
    load(1, { delaySecs: 60 });
    load(2, { delaySecs: 10 });
    load(3, { delaySecs: 30 });
    expect({ armed: clock.sweepTimersArmed(), pending: clock.pending() }).toEqual({
      armed: [60_000, 10_000],
      pending: [10_000],
    });
  });

  test('all threads unload at their own deadlines through the one timer', async () => {
    const { clock, effects, load } = setup();
    const threads = [load(1, { delaySecs: 30 }), load(2, { delaySecs: 10 }), load(3, { delaySecs: 20 })];
    const unloadedAt: Record<string, number> = {};
    for (const t of [10_000, 20_000, 30_000]) {
      await clock.advanceTo(t);
      for (const thread of threads) if (thread.lifecycle.kind === 'unloaded' && !(thread.id in unloadedAt)) unloadedAt[thread.id] = t;
    }
    expect(unloadedAt).toEqual({ [id(2)]: 10_000, [id(3)]: 20_000, [id(1)]: 30_000 });
    expect(effects.filter((effect) => effect.startsWith('announceUnloaded'))).toEqual([
      `announceUnloaded ${id(2)} unloaded listed=false`,
      `announceUnloaded ${id(3)} unloaded listed=false`,
      `announceUnloaded ${id(1)} unloaded listed=false`,
    ]);
  });

  test('a sweep arms exactly one timer, for the next thread still waiting', async () => {
    const { clock, load } = setup();
    load(1, { delaySecs: 60 });
    load(2, { delaySecs: 90 });
    await clock.advanceTo(60_000);
    // One arm for the first deadline, one for the second; no extra wake-up in between.
    expect({ armed: clock.sweepTimersArmed(), pending: clock.pending() }).toEqual({
      armed: [60_000, 90_000],
      pending: [90_000],
    });
  });

  test('after ten idle unloads one sweep timer is pending, for the thread still waiting', async () => {
    const { clock, load } = setup();
    const patient = load(100, { delaySecs: 3_600 });
    const quick = [];
    for (let n = 0; n < 10; n += 1) {
      clock.set(n * 1_000);
      quick.push(load(n, { delaySecs: 60 }));
    }
    await clock.advanceTo(70_000);
    expect({
      quick: quick.filter((thread) => thread.lifecycle.kind === 'unloaded').length,
      patient: patient.lifecycle.kind,
      pending: clock.pending(),
    }).toEqual({ quick: 10, patient: 'loaded', pending: [3_600_000] });
  });

  test('many threads due at the same instant unload in one sweep', async () => {
    const { clock, load } = setup();
    const threads = Array.from({ length: 50 }, (_, n) => load(n, { delaySecs: 60 }));
    await clock.advanceTo(60_000);
    expect(threads.filter((thread) => thread.lifecycle.kind !== 'unloaded')).toEqual([]);
    expect(clock.pending()).toEqual([]);
  });
});

describe('the unload sequence', () => {
  test('effects run in order: closeActor, releaseLock, directory.remove, announceUnloaded', async () => {
    const { effects, supervisor, load } = setup();
    const thread = load(1);
    expect(await supervisor.unload(thread, 'shutdown')).toEqual('complete');
    expect({ effects, lifecycle: thread.lifecycle }).toEqual({
      effects: cleanUnload(thread.id),
      lifecycle: { kind: 'unloaded', reason: 'shutdown' },
    });
  });

  test('the thread is marked unloading at once and stays listed until the actor closes', async () => {
    const close = deferred();
    const { clock, effects, supervisor, load, state } = setup({ closeActor: () => close.promise });
    const thread = load(1);
    await clock.advanceTo(1_000);
    const outcome = track(supervisor.unload(thread, 'idle'), clock);
    expect(state(thread)).toEqual({
      lifecycle: { kind: 'unloading', reason: 'idle', since: 1_000 },
      listed: true,
      registered: true,
    });
    await clock.advanceTo(1_500);
    expect({ effects, outcome }).toEqual({ effects: [], outcome: {} });
    close.resolve();
    await flush();
    expect({ effects, outcome, state: state(thread) }).toEqual({
      effects: [`releaseLock ${thread.id}`, `directory.remove ${thread.id} true`, `announceUnloaded ${thread.id} unloaded listed=false`],
      outcome: { value: 'complete', at: 1_500 },
      state: { lifecycle: { kind: 'unloaded', reason: 'idle' }, listed: false, registered: false },
    });
  });

  test('a closeActor that never settles is abandoned at actorCloseTimeoutMs and its late answer is ignored', async () => {
    const close = deferred();
    const { clock, effects, logs, supervisor, load, state } = setup({
      closeActor: (thread) => {
        effects.push(`closeActor ${thread.id}`);
        return close.promise;
      },
    });
    const thread = load(1);
    const outcome = track(supervisor.unload(thread, 'idle'), clock);
    await clock.advanceTo(CLOSE_TIMEOUT_MS - 1);
    expect({ effects, outcome, kind: thread.lifecycle.kind }).toEqual({
      effects: [`closeActor ${thread.id}`],
      outcome: {},
      kind: 'unloading',
    });
    await clock.advanceTo(CLOSE_TIMEOUT_MS);
    const finished = {
      // The worker is reported as presumed stuck before ownership is released.
      effects: [`closeActor ${thread.id}`, `actorUnresponsive ${thread.id}`, ...cleanUnload(thread.id).slice(1)],
      outcome: { value: 'actorTimedOut', at: CLOSE_TIMEOUT_MS },
      logs: [
        {
          level: 'warn',
          message: `actor did not close its rollout within ${CLOSE_TIMEOUT_MS} ms; finishing unload from the main thread`,
          fields: { threadId: thread.id, outcome: 'timedOut' },
        },
        { level: 'info', message: 'thread unloaded', fields: { threadId: thread.id, reason: 'idle', outcome: 'actorTimedOut' } },
      ],
      state: { lifecycle: { kind: 'unloaded', reason: 'idle' }, listed: false, registered: false },
    };
    expect({ effects, outcome, logs, state: state(thread) }).toEqual(finished);
    // The actor answers long after: nothing changes.
    await clock.advanceTo(10_000);
    close.resolve();
    await flush();
    expect({ effects, outcome, logs, state: state(thread) }).toEqual(finished);
  });

  test('a late rejection from an abandoned closeActor is ignored too', async () => {
    const close = deferred();
    const { clock, effects, supervisor, load } = setup({ closeActor: () => close.promise });
    const thread = load(1);
    expect(await Promise.all([supervisor.unload(thread, 'idle'), clock.advanceTo(CLOSE_TIMEOUT_MS)])).toEqual([
      'actorTimedOut',
      undefined,
    ]);
    close.reject(new Error('worker died later'));
    await flush();
    expect(effects).toEqual([`actorUnresponsive ${thread.id}`, ...cleanUnload(thread.id).slice(1)]);
  });

  test('a closeActor that rejects gives actorFailed, yet the lock is released and the unload announced', async () => {
    const { clock, effects, logs, supervisor, load, state } = setup({
      closeActor: async (thread) => {
        effects.push(`closeActor ${thread.id}`);
        throw new Error('actor is gone');
      },
    });
    const thread = load(1);
    const outcome = track(supervisor.unload(thread, 'workerLost'), clock);
    await flush();
    expect({ effects, outcome, logs, state: state(thread), pending: clock.pending() }).toEqual({
      effects: cleanUnload(thread.id),
      outcome: { value: 'actorFailed', at: 0 },
      logs: [
        {
          level: 'warn',
          message: 'actor failed to close its rollout; finishing unload from the main thread',
          fields: { threadId: thread.id, outcome: 'failed' },
        },
        { level: 'info', message: 'thread unloaded', fields: { threadId: thread.id, reason: 'workerLost', outcome: 'actorFailed' } },
      ],
      state: { lifecycle: { kind: 'unloaded', reason: 'workerLost' }, listed: false, registered: false },
      // The deadline timer was cleared; only the (now pointless) sweep timer remains.
      pending: [60_000],
    });
  });

  test('a releaseLock that throws is logged and the unload still finishes', async () => {
    const { effects, logs, supervisor, load } = setup({
      releaseLock: () => {
        throw new Error('EBADF');
      },
    });
    const thread = load(1);
    expect(await supervisor.unload(thread, 'idle')).toEqual('complete');
    expect({ effects, logs, lifecycle: thread.lifecycle }).toEqual({
      effects: [`closeActor ${thread.id}`, `directory.remove ${thread.id} true`, `announceUnloaded ${thread.id} unloaded listed=false`],
      logs: [
        { level: 'error', message: 'releasing the writer lock failed', fields: { threadId: thread.id, error: 'Error: EBADF' } },
        { level: 'info', message: 'thread unloaded', fields: { threadId: thread.id, reason: 'idle', outcome: 'complete' } },
      ],
      lifecycle: { kind: 'unloaded', reason: 'idle' },
    });
  });
});

describe('unload is idempotent and the first reason wins', () => {
  test('a second call while the first runs returns the same promise and does nothing more', async () => {
    const close = deferred();
    let closeCalls = 0;
    const { effects, supervisor, load } = setup({
      closeActor: () => {
        closeCalls += 1;
        return close.promise;
      },
    });
    const thread = load(1);
    const first = supervisor.unload(thread, 'idle');
    const second = supervisor.unload(thread, 'shutdown');
    expect(second).toBe(first);
    expect(thread.lifecycle).toEqual({ kind: 'unloading', reason: 'idle', since: 0 });
    close.resolve();
    expect(await first).toEqual('complete');
    expect({ closeCalls, effects, lifecycle: thread.lifecycle }).toEqual({
      closeCalls: 1,
      effects: cleanUnload(thread.id).slice(1),
      lifecycle: { kind: 'unloaded', reason: 'idle' },
    });
  });

  test('a call after the unload finished does nothing and keeps the first reason', async () => {
    const { effects, supervisor, load } = setup();
    const thread = load(1);
    expect(await supervisor.unload(thread, 'idle')).toEqual('complete');
    expect(await supervisor.unload(thread, 'shutdown')).toEqual('complete');
    expect({ effects, lifecycle: thread.lifecycle }).toEqual({
      effects: cleanUnload(thread.id),
      lifecycle: { kind: 'unloaded', reason: 'idle' },
    });
  });

  test('an explicit unload cancels the idle countdown, so the sweep does not unload again', async () => {
    const { clock, effects, supervisor, load } = setup();
    const thread = load(1, { delaySecs: 60 });
    expect(await supervisor.unload(thread, 'workerLost')).toEqual('complete');
    expect(supervisor.scheduledCount).toEqual(0);
    await clock.advanceTo(120_000);
    expect({ effects, lifecycle: thread.lifecycle }).toEqual({
      effects: cleanUnload(thread.id),
      lifecycle: { kind: 'unloaded', reason: 'workerLost' },
    });
  });
});

describe('unloadAll', () => {
  test('unloads every loaded thread with the given reason and disarms the sweep timer', async () => {
    const { clock, effects, supervisor, load, directory } = setup();
    const a = load(1, { delaySecs: 60 });
    const b = load(2, { delaySecs: null, subscribers: [1] });
    const loading = new LoadedThread(id(3), 0);
    directory.register(loading);
    const outcomes: UnloadOutcome[] = await supervisor.unloadAll('shutdown');
    expect({
      outcomes,
      lifecycles: [a.lifecycle, b.lifecycle, loading.lifecycle],
      announced: effects.filter((effect) => effect.startsWith('announceUnloaded')),
      pending: clock.pending(),
      scheduled: supervisor.scheduledCount,
      page: directory.page(null, null),
    }).toEqual({
      outcomes: ['complete', 'complete'],
      lifecycles: [
        { kind: 'unloaded', reason: 'shutdown' },
        { kind: 'unloaded', reason: 'shutdown' },
        { kind: 'loading', since: 0 },
      ],
      announced: [`announceUnloaded ${a.id} unloaded listed=false`, `announceUnloaded ${b.id} unloaded listed=false`],
      pending: [],
      scheduled: 0,
      page: { data: [], nextCursor: null },
    });
  });

  test('with nothing loaded it resolves to an empty list', async () => {
    const { supervisor } = setup();
    expect(await supervisor.unloadAll('shutdown')).toEqual([]);
  });

  test('a stuck actor delays unloadAll only until its close deadline', async () => {
    const stuck = deferred();
    const { clock, supervisor, load } = setup({ closeActor: (thread) => (thread.id === id(2) ? stuck.promise : Promise.resolve()) });
    load(1);
    load(2);
    const all = track(supervisor.unloadAll('shutdown'), clock);
    await clock.advanceTo(CLOSE_TIMEOUT_MS - 1);
    expect(all).toEqual({});
    await clock.advanceTo(CLOSE_TIMEOUT_MS);
    expect(all).toEqual({ value: ['complete', 'actorTimedOut'], at: CLOSE_TIMEOUT_MS });
  });

  test('it also waits for an unload already in progress, which keeps its first reason', async () => {
    const close = deferred();
    const { clock, supervisor, load } = setup({ closeActor: (thread) => (thread.id === id(1) ? close.promise : Promise.resolve()) });
    const busy = load(1);
    load(2);
    const idle = track(supervisor.unload(busy, 'idle'), clock);
    const all = track(supervisor.unloadAll('shutdown'), clock);
    await clock.advanceTo(100);
    // Shutdown must not report completion while the idle unload still holds the actor.
    expect({ idle, all }).toEqual({ idle: {}, all: {} });
    close.resolve();
    await flush();
    expect({ idle, all, lifecycle: busy.lifecycle }).toEqual({
      idle: { value: 'complete', at: 100 },
      all: { value: ['complete', 'complete'], at: 100 },
      lifecycle: { kind: 'unloaded', reason: 'idle' },
    });
  });
});

describe('settledWithin', () => {
  test.each([
    { name: 'work that resolves in time is done', settle: 'resolve', expected: 'done' },
    { name: 'work that rejects in time has failed', settle: 'reject', expected: 'failed' },
    { name: 'work still pending at the deadline has timed out', settle: 'none', expected: 'timedOut' },
  ] as const)('$name', async ({ settle, expected }) => {
    const clock = new FakeClock();
    const work = deferred();
    const result = track(settledWithin(work.promise, 100, clock), clock);
    await clock.advanceTo(10);
    if (settle === 'resolve') work.resolve();
    if (settle === 'reject') work.reject(new Error('x'));
    await flush();
    await clock.advanceTo(100);
    expect({ result: result.value, pending: clock.pending() }).toEqual({ result: expected, pending: [] });
  });
});

describe('eviction under pressure', () => {
  test('tryEvictIdle unloads the thread idle longest, now, and leaves subscribed threads alone', async () => {
    const { clock, effects, supervisor, load, state } = setup();
    const subscribed = load(1, { delaySecs: 60, subscribers: [7] });
    await clock.advanceTo(1_000);
    const older = load(2, { delaySecs: 60 });
    await clock.advanceTo(2_000);
    const newer = load(3, { delaySecs: 60 });
    expect(await supervisor.tryEvictIdle()).toEqual('complete');
    expect({ effects, scheduled: supervisor.scheduledCount, older: state(older).lifecycle, newer: state(newer).lifecycle }).toEqual({
      effects: cleanUnload(older.id),
      scheduled: 1,
      older: { kind: 'unloaded', reason: 'idle' },
      newer: { kind: 'loaded', since: 2_000 },
    });
    expect(await supervisor.tryEvictIdle()).toEqual('complete');
    expect([supervisor.tryEvictIdle(), state(subscribed).lifecycle]).toEqual([null, { kind: 'loaded', since: 0 }]);
  });
});

describe('fenced unload of a quiet actor', () => {
  test('a quiet actor is fenced: lock released, thread forgotten and closed announced before its close is even sent', async () => {
    const close = deferred();
    const { clock, effects, supervisor, load, state } = setup({ closeActor: () => close.promise });
    const thread = load(1);
    const buffer = WriteFence.allocate();
    thread.fenceShared(new WriteFence(buffer));
    const worker = new WriteFence(buffer);
    const outcome = track(supervisor.unload(thread, 'idle'), clock);
    await flush();
    expect({ effects, outcome, state: state(thread), workerFenced: worker.fenced }).toEqual({
      effects: [
        `releaseLock ${thread.id}`,
        `directory.remove ${thread.id} true`,
        `announceUnloaded ${thread.id} unloaded listed=false`,
        `closeFenced ${thread.id}`,
      ],
      outcome: { value: 'complete', at: 0 },
      state: { lifecycle: { kind: 'unloaded', reason: 'idle' }, listed: false, registered: false },
      workerFenced: true,
    });
    close.resolve();
  });

  test('a shutdown waits for the close of an actor fenced before it, up to the close deadline', async () => {
    for (const answer of ['closes', 'never'] as const) {
      const close = deferred();
      const { clock, effects, supervisor, load, logs } = setup({ closeActor: () => close.promise });
      const thread = load(1);
      thread.fenceShared(new WriteFence(WriteFence.allocate()));
      await supervisor.unload(thread, 'idle');
      const shutdown = track(supervisor.unloadAll('shutdown'), clock);
      await flush();
      expect({ answer, shutdown, closeSent: effects.includes(`closeFenced ${thread.id}`) }).toEqual({ answer, shutdown: {}, closeSent: true });
      if (answer === 'closes') close.resolve();
      else await clock.advanceTo(CLOSE_TIMEOUT_MS);
      await flush();
      expect({ answer, shutdown, warnings: logs.filter((entry) => entry.level === 'warn').map((entry) => entry.fields) }).toEqual({
        answer,
        shutdown: { value: [], at: answer === 'closes' ? 0 : CLOSE_TIMEOUT_MS },
        warnings: answer === 'closes' ? [] : [{ threadId: thread.id, outcome: 'timedOut' }],
      });
    }
  });

  test('an actor in a command, a thread with a turn pending, or a shutdown is waited for as before', async () => {
    for (const busy of ['command', 'pendingTurn', 'shutdown'] as const) {
      const close = deferred();
      const { clock, effects, supervisor, load } = setup({ closeActor: () => close.promise });
      const thread = load(1);
      const buffer = WriteFence.allocate();
      thread.fenceShared(new WriteFence(buffer));
      if (busy === 'command') new WriteFence(buffer).enter();
      if (busy === 'pendingTurn') acceptTurn(thread, 'turn-1');
      const outcome = track(supervisor.unload(thread, busy === 'shutdown' ? 'shutdown' : 'idle'), clock);
      await flush();
      expect({ busy, effects, outcome, fenced: thread.fence!.fenced }).toEqual({ busy, effects: [], outcome: {}, fenced: false });
      close.resolve();
      await flush();
      expect({ busy, effects }).toEqual({
        busy,
        effects: [`releaseLock ${thread.id}`, `directory.remove ${thread.id} true`, `announceUnloaded ${thread.id} unloaded listed=false`],
      });
    }
  });
});
