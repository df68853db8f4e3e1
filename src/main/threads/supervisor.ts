// The supervisor owns unloading. It watches every loaded thread with ONE timer armed for the
// earliest due instant (never a timer per thread), and runs each unload as an ordered
// sequence in which every wait has a deadline:
//
//   mark unloading ──> actor flushes + closes its rollout (deadline) ──> release writer lock
//        ──> remove from directory ──> broadcast notLoaded, then thread/closed ──> unloaded
//
// If the worker hosting the actor does not answer in time (stuck, crashed, blocked in a
// synchronous call), the unload still finishes from the main thread and the late answer is
// ignored. Nothing here ever waits on a lock: lock release is a single non-blocking try.
import type { Clock } from '../../shared/clock.js';
import type { ThreadDirectory } from './directory.js';
import type { UnloadReason } from './lifecycle.js';
import type { LoadedThread } from './loaded-thread.js';
import { unloadDueAt } from './unload-rule.js';

/** How an unload ended: the actor confirmed, or it was abandoned at the deadline. */
export type UnloadOutcome = 'complete' | 'actorTimedOut' | 'actorFailed' | 'cancelled';

export interface SupervisorDeps {
  clock: Clock;
  directory: ThreadDirectory;
  /** Deadline for the actor to flush and close its rollout. */
  actorCloseTimeoutMs: number;
  closeActor(thread: LoadedThread): Promise<unknown>;
  /** The actor missed its close deadline: its worker is presumed stuck. */
  actorUnresponsive?(thread: LoadedThread): void;
  releaseLock(thread: LoadedThread): void;
  /** Called after the thread left the directory; sends notLoaded and thread/closed. */
  announceUnloaded(thread: LoadedThread): void;
  log(level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>): void;
}

export class Supervisor {
  readonly #deps: SupervisorDeps;
  readonly #due = new Map<LoadedThread, number>();
  readonly #unloads = new Map<LoadedThread, Promise<UnloadOutcome>>();
  #timer: unknown = null;
  #timerAt = Infinity;
  #sweepQueued = false;

  constructor(deps: SupervisorDeps) {
    this.#deps = deps;
  }

  /** Re-reads a thread's subscribers and activity; (re)schedules or cancels its unload. */
  noteChanged(thread: LoadedThread): void {
    const dueAt = this.#dueAt(thread);
    if (dueAt === null) {
      this.#due.delete(thread);
      return;
    }
    this.#due.set(thread, dueAt);
    // Already due (delay 0): start within this turn of the event loop, so a request that
    // arrives next already sees the thread closing.
    if (dueAt <= this.#deps.clock.now()) this.#sweepSoon();
    else if (dueAt < this.#timerAt) this.#arm(dueAt);
  }

  /** Threads waiting out their idle delay. */
  get scheduledCount(): number {
    return this.#due.size;
  }

  /**
   * Unloads `thread` now. Idempotent: a second call returns the first call's promise, so
   * the first reason wins.
   */
  unload(thread: LoadedThread, reason: UnloadReason): Promise<UnloadOutcome> {
    const running = this.#unloads.get(thread);
    if (running) return running;
    if (thread.lifecycle.kind === 'unloaded') return Promise.resolve('complete');
    this.#due.delete(thread);
    thread.moveTo({ kind: 'unloading', reason, since: this.#deps.clock.now() });
    const outcome = this.#runUnload(thread);
    this.#unloads.set(thread, outcome);
    void outcome.finally(() => this.#unloads.delete(thread));
    return outcome;
  }

  /** Unloads every registered thread (shutdown); resolves when all have finished. */
  async unloadAll(reason: UnloadReason): Promise<UnloadOutcome[]> {
    this.#disarm();
    const threads = this.#deps.directory.all().filter((thread) => thread.lifecycle.kind === 'loaded');
    // Unloads already running are waited for too; they keep their own first reason.
    return Promise.all([...this.#unloads.values(), ...threads.map((thread) => this.unload(thread, reason))]);
  }

  stop(): void {
    this.#disarm();
    this.#due.clear();
  }

  async #runUnload(thread: LoadedThread): Promise<UnloadOutcome> {
    const { clock, actorCloseTimeoutMs } = this.#deps;
    const closed = await withDeadline(this.#deps.closeActor(thread), actorCloseTimeoutMs, clock);
    if (closed === 'timedOut') this.#deps.actorUnresponsive?.(thread);
    if (closed !== 'done') {
      // The worker is stuck or gone; its late answer is ignored. Ownership is released
      // below regardless, so no other process is kept out of the thread.
      const why = closed === 'timedOut' ? `did not close its rollout within ${actorCloseTimeoutMs} ms` : 'failed to close its rollout';
      this.#deps.log('warn', `actor ${why}; finishing unload from the main thread`, { threadId: thread.id, outcome: closed });
    }
    try {
      this.#deps.releaseLock(thread);
    } catch (error) {
      this.#deps.log('error', 'releasing the writer lock failed', { threadId: thread.id, error: String(error) });
    }
    this.#deps.directory.remove(thread);
    thread.moveTo({ kind: 'unloaded', reason: (thread.lifecycle as { reason: UnloadReason }).reason });
    try {
      this.#deps.announceUnloaded(thread);
    } catch (error) {
      this.#deps.log('error', 'announcing an unload failed', { threadId: thread.id, error: String(error) });
    }
    const outcome = closed === 'done' ? 'complete' : closed === 'timedOut' ? 'actorTimedOut' : 'actorFailed';
    this.#deps.log('info', 'thread unloaded', { threadId: thread.id, reason: (thread.lifecycle as { reason: UnloadReason }).reason, outcome });
    return outcome;
  }

  #arm(at: number): void {
    this.#disarm();
    const { clock } = this.#deps;
    this.#timerAt = at;
    this.#timer = clock.setTimeout(() => this.#sweep(), Math.max(0, at - clock.now()));
  }

  #disarm(): void {
    if (this.#timer !== null) this.#deps.clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
  }

  // Many threads can fall due in one event (a connection with many subscriptions closes);
  // they share one sweep.
  #sweepSoon(): void {
    if (this.#sweepQueued) return;
    this.#sweepQueued = true;
    queueMicrotask(() => {
      this.#sweepQueued = false;
      this.#sweep();
    });
  }

  // One pass over the schedule: unload what is due, re-checking the rule (subscribers or
  // turns may have changed since it was scheduled), then arm one timer for the earliest rest.
  #sweep(): void {
    this.#disarm();
    const now = this.#deps.clock.now();
    let next = Infinity;
    for (const thread of [...this.#due.keys()]) {
      try {
        const dueAt = this.#dueAt(thread);
        if (dueAt === null) this.#due.delete(thread);
        else if (dueAt <= now) void this.unload(thread, 'idle');
        else {
          this.#due.set(thread, dueAt);
          next = Math.min(next, dueAt);
        }
      } catch (error) {
        this.#deps.log('error', 'unload sweep failed for a thread', { threadId: thread.id, error: String(error) });
      }
    }
    if (next !== Infinity) this.#arm(next);
  }

  #dueAt(thread: LoadedThread): number | null {
    if (thread.lifecycle.kind !== 'loaded') return null;
    return unloadDueAt(
      {
        subscriberCount: thread.subscribers.size,
        turnRunning: thread.turnRunning,
        noSubscribersSince: thread.noSubscribersSince,
        inactiveSince: thread.inactiveSince,
      },
      thread.unloadDelaySecs,
    );
  }
}

/** Resolves 'done' when `work` settles in time, 'failed' when it rejects, 'timedOut' otherwise. */
export function withDeadline(work: Promise<unknown>, ms: number, clock: Clock): Promise<'done' | 'failed' | 'timedOut'> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => resolve('timedOut'), ms);
    work.then(
      () => {
        clock.clearTimeout(timer);
        resolve('done');
      },
      () => {
        clock.clearTimeout(timer);
        resolve('failed');
      },
    );
  });
}
