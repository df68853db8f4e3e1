// Serves work that must run under the lockfile backend's coordination lock, in batches, with a
// deadline per item. The flock poller's twin, but asynchronous all the way: entering
// coordination is a mkdir on what may be a network filesystem, and so is the work done under
// it, so nothing here may run synchronously on the main thread.
//
//   enqueue ──► pending[] ──pump──► tryEnter() ── held ──► serve the batch, one at a time; exit()
//     │            ▲                    │
//     │            └── sleep one ◄── contended
//     │                interval
//     └── each item's own deadline timer: settles it 'timedOut' wherever it is; work that
//         finishes after that is handed to `abandon` (an acquired lock is given back)
//
// One pump runs at a time, so this process never contends with itself for coordination.
import type { Clock } from '../../../../../common/clock.js';
import type { PollOutcome } from '../coordination-poller.js';

/** Coordination held by this process; `exit` gives it back. */
export interface AsyncCoordinationHold {
  exit(): Promise<void>;
}

/**
 * What a `serve` returns to be served again at a later hold, within its own deadline: the
 * attempt met contention that only time resolves (a network filesystem's ESTALE, say).
 */
export const SERVE_AGAIN: unique symbol = Symbol('serve again');

/** One attempt at coordination: the hold, or undefined when another owner has it. */
export type TryEnterAsync = () => Promise<AsyncCoordinationHold | undefined>;

export interface CoordinationQueueOptions {
  clock: Clock;
  /** Delay between attempts while contended (50 ms, as the flock backend and Codex poll). */
  pollIntervalMs: number;
  tryEnter: TryEnterAsync;
  /** Reports a failure that belongs to no request (leaving coordination failed, say). */
  onBackgroundError: (error: unknown) => void;
}

interface Item {
  readonly serve: () => Promise<unknown>;
  readonly abandon: (value: unknown) => void;
  readonly settle: (outcome: PollOutcome<unknown>) => void;
  readonly fail: (error: unknown) => void;
  timer: unknown;
  state: 'waiting' | 'serving' | 'settled';
}

type PumpState = 'idle' | 'running' | 'closed';

/** One per backend: the only path by which this process enters coordination. */
export class CoordinationQueue {
  readonly #options: CoordinationQueueOptions;
  #pending: Item[] = [];
  #pump: PumpState = 'idle';
  #sleeping: { timer: unknown; wake: () => void } | null = null;
  /** The pump's current run; close() stops it, but an attempt in flight still finishes. */
  #running: Promise<void> = Promise.resolve();

  constructor(options: CoordinationQueueOptions) {
    this.#options = options;
  }

  /**
   * Runs `serve` while this process holds coordination, unless `timeoutMs` passes first. A
   * `serve` still running at the deadline is not cancelled (a syscall cannot be): the item
   * settles 'timedOut' and its late value goes to `abandon`.
   */
  enqueue<R>(serve: () => Promise<R | typeof SERVE_AGAIN>, timeoutMs: number, abandon: (value: R) => void): Promise<PollOutcome<R>> {
    if (this.#pump === 'closed') return Promise.reject(new Error('coordination queue is closed'));
    return new Promise<PollOutcome<R>>((resolve, reject) => {
      const item: Item = {
        serve,
        abandon: abandon as (value: unknown) => void,
        settle: resolve as (outcome: PollOutcome<unknown>) => void,
        fail: reject,
        timer: undefined,
        state: 'waiting',
      };
      item.timer = this.#options.clock.setTimeout(() => this.#expire(item), Math.max(0, timeoutMs));
      this.#pending.push(item);
      if (this.#pump === 'idle') this.#running = this.#run().catch((error: unknown) => this.#options.onBackgroundError(error));
    });
  }

  /** Items not yet served. */
  pendingCount(): number {
    return this.#pending.length;
  }

  /**
   * Resolves once the pump is at rest: after close(), once an attempt at coordination that was
   * in flight has finished and given coordination back. Never rejects.
   */
  settled(): Promise<void> {
    return this.#running;
  }

  /** Rejects everything still waiting and stops the pump. Idempotent. */
  close(): void {
    this.#pump = 'closed';
    for (const item of this.#takeAll()) this.#finish(item, () => item.fail(new Error('coordination queue is closed')));
    this.#sleeping?.wake();
  }

  #expire(item: Item): void {
    if (item.state === 'settled') return;
    if (item.state === 'waiting') this.#pending = this.#pending.filter((other) => other !== item);
    this.#finish(item, () => item.settle({ kind: 'timedOut' }));
  }

  #finish(item: Item, settle: () => void): void {
    if (item.state === 'settled') return;
    item.state = 'settled';
    this.#options.clock.clearTimeout(item.timer);
    settle();
  }

  async #run(): Promise<void> {
    this.#pump = 'running';
    try {
      while (this.#pending.length > 0 && this.#pump === 'running') {
        let hold: AsyncCoordinationHold | undefined;
        try {
          hold = await this.#options.tryEnter();
        } catch (error) {
          // Not contention (EACCES, ENOSPC, …): nobody waiting now can make progress.
          for (const item of this.#takeAll()) this.#finish(item, () => item.fail(error));
          continue;
        }
        if (hold === undefined) {
          await this.#sleep(this.#options.pollIntervalMs);
          continue;
        }
        let servedAgain = false;
        try {
          servedAgain = await this.#serveBatch();
        } finally {
          await hold.exit().catch((error: unknown) => this.#options.onBackgroundError(error));
        }
        if (servedAgain) await this.#sleep(this.#options.pollIntervalMs);
      }
    } finally {
      if (this.#pump === 'running') this.#pump = 'idle';
    }
  }

  // Items served one at a time: each is a few awaited syscalls, and serving them in one hold
  // is what amortizes coordination across a burst of resumes. True when some asked to be
  // served again (they wait one interval, like contention for coordination itself).
  async #serveBatch(): Promise<boolean> {
    const batch = this.#takeAll();
    let servedAgain = false;
    for (const item of batch) item.state = 'serving';
    for (const item of batch) {
      if (this.#pump === 'closed' && item.state === 'serving') {
        this.#finish(item, () => item.fail(new Error('coordination queue is closed')));
        continue;
      }
      try {
        const value = await item.serve();
        if (value === SERVE_AGAIN) {
          if (item.state === 'serving') {
            item.state = 'waiting';
            this.#pending.push(item);
            servedAgain = true;
          }
          continue;
        }
        if (item.state === 'settled') item.abandon(value);
        else this.#finish(item, () => item.settle({ kind: 'served', value }));
      } catch (error) {
        this.#finish(item, () => item.fail(error));
      }
    }
    return servedAgain;
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#sleeping = null;
        resolve();
      };
      const timer = this.#options.clock.setTimeout(wake, ms);
      this.#sleeping = {
        timer,
        wake: () => {
          this.#options.clock.clearTimeout(timer);
          wake();
        },
      };
    });
  }

  #takeAll(): Item[] {
    const taken = this.#pending;
    this.#pending = [];
    return taken;
  }
}
