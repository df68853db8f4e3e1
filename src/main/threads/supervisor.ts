// The supervisor is the one door to unloading. It watches every loaded thread with ONE timer
// armed for the earliest due instant (never a timer per thread), applies the reference's idle
// rule, and hands due threads, like every other unload (shutdown, a lost worker, a failed
// load), to the one unload sequence in unloader.ts.
import type { Clock } from '../../common/clock.js';
import type { LogFn } from '../../common/log.js';
import type { ThreadDirectory } from './directory.js';
import type { UnloadReason } from './lifecycle.js';
import type { LoadedThread } from './loaded-thread.js';
import { unloadDueAt } from './unload-rule.js';
import type { Unloader, UnloadOutcome } from './unloader.js';
import { atEndOfTask } from '../scheduling.js';

export type { UnloadOutcome };

export interface SupervisorDeps {
  clock: Clock;
  directory: ThreadDirectory;
  unloader: Unloader;
  log: LogFn;
}

export class Supervisor {
  readonly #deps: SupervisorDeps;
  readonly #due = new Map<LoadedThread, number>();
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
    // Already due (delay 0): start within this iteration of the event loop, so a request that
    // arrives next already sees the thread closing.
    if (dueAt <= this.#deps.clock.now()) this.#sweepSoon();
    else if (dueAt < this.#timerAt) this.#arm(dueAt);
  }

  /** Threads waiting out their idle delay. */
  get scheduledCount(): number {
    return this.#due.size;
  }

  /**
   * Unloads `thread` now, whatever its idleness. Idempotent: a second call returns the first
   * call's promise, so the first reason wins.
   */
  unload(thread: LoadedThread, reason: UnloadReason): Promise<UnloadOutcome> {
    this.#due.delete(thread);
    return this.#deps.unloader.unload(thread, reason);
  }

  /**
   * Starts unloading the idle thread without subscribers that has waited longest (least
   * recently used, as all share the host's delay), ahead of its delay, to make room for a new
   * load; null when no thread is waiting out its delay.
   */
  tryEvictIdle(): Promise<UnloadOutcome> | null {
    let oldest: LoadedThread | null = null;
    let oldestDue = Infinity;
    for (const [thread, dueAt] of this.#due) {
      if (dueAt < oldestDue && this.#dueAt(thread) !== null) {
        oldest = thread;
        oldestDue = dueAt;
      }
    }
    return oldest === null ? null : this.unload(oldest, 'idle');
  }

  /** Unloads every registered thread (shutdown); resolves when all have finished. */
  unloadAll(reason: UnloadReason): Promise<UnloadOutcome[]> {
    this.#disarm();
    this.#due.clear();
    return this.#deps.unloader.unloadAll(this.#deps.directory.all(), reason);
  }

  stop(): void {
    this.#disarm();
    this.#due.clear();
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
    atEndOfTask(() => {
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
