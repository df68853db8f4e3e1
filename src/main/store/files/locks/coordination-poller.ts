// Waits for SHARED coordination on behalf of every pending acquisition at once, without
// blocking anything: Codex parks a Tokio worker in clock_nanosleep for up to 30 s (spec §2);
// here a waiting acquisition costs one entry in an array, and the whole batch costs one timer.
//
//   enqueue ──► pending[] ──tick──► tryEnter() ── hold ──► serve pending items (≤ 1 ms), exit()
//                  ▲                    │
//                  └── one timer ◄── contended: expire items past their deadline,
//                      (next 50 ms grid point       re-arm if any remain
//                       or earliest deadline)
import type { Clock } from '../../../../common/clock.js';
import type { CoordinationHold } from './flock/coordination-lock.js';

/** How one queued acquisition ended: its serve callback ran under coordination, or its deadline passed first. */
export type PollOutcome<R> = { kind: 'served'; value: R } | { kind: 'timedOut' };

/** What the poller needs from the coordination lock: one non-blocking attempt. */
export type TryEnter = () => CoordinationHold | undefined;

export interface CoordinationPollerOptions {
  clock: Clock;
  /** Delay between attempts while contended (Codex: 50 ms). */
  pollIntervalMs: number;
  tryEnter: TryEnter;
}

interface PendingItem {
  readonly deadline: number;
  readonly serve: () => unknown;
  readonly settle: (outcome: PollOutcome<unknown>) => void;
  readonly fail: (error: unknown) => void;
}

/** The longest one tick serves waiting acquisitions before it yields to the event loop. */
const SERVE_BUDGET_MS = 1;

type PollerState =
  | { kind: 'idle' }
  | { kind: 'waiting'; timer: unknown; dueAt: number }
  | { kind: 'closed' };

/** One shared-coordination poller per lock manager, serving all waiting acquisitions in batches. */
export class CoordinationPoller {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #tryEnter: TryEnter;
  #pending: PendingItem[] = [];
  /** The next attempt on the regular every-interval grid; deadline wake-ups fall between, without shifting it. */
  #nextPollAt = -Infinity;
  #state: PollerState = { kind: 'idle' };

  constructor(options: CoordinationPollerOptions) {
    this.#clock = options.clock;
    this.#intervalMs = options.pollIntervalMs;
    this.#tryEnter = options.tryEnter;
  }

  /**
   * Run `serve` while holding shared coordination, as soon as it can be had and before
   * `timeoutMs` elapses. When nothing is waiting, the first attempt happens synchronously, so an
   * uncontended acquisition costs no timer. Otherwise the item joins the current batch.
   * `serve` throwing rejects only its own promise.
   */
  enqueue<R>(serve: () => R, timeoutMs: number): Promise<PollOutcome<R>> {
    if (this.#state.kind === 'closed') return Promise.reject(new Error('coordination poller is closed'));
    return new Promise<PollOutcome<R>>((resolve, reject) => {
      const deadline = this.#clock.now() + Math.max(0, timeoutMs);
      this.#pending.push({ deadline, serve, settle: resolve as (o: PollOutcome<unknown>) => void, fail: reject });
      if (this.#state.kind === 'idle') {
        this.#tick();
      } else if (this.#state.kind === 'waiting' && deadline < this.#state.dueAt) {
        // A shorter deadline than the armed timer: re-arm so it times out on time, not a tick late.
        this.#clock.clearTimeout(this.#state.timer);
        this.#arm(deadline);
      }
    });
  }

  /** Acquisitions still waiting for coordination. */
  pendingCount(): number {
    return this.#pending.length;
  }

  /** Cancels the timer and rejects everything still waiting. Idempotent. */
  close(): void {
    if (this.#state.kind === 'waiting') this.#clock.clearTimeout(this.#state.timer);
    this.#state = { kind: 'closed' };
    const pending = this.#takeAll();
    for (const item of pending) item.fail(new Error('coordination poller is closed'));
  }

  #tick(): void {
    if (this.#state.kind === 'closed') return;
    this.#state = { kind: 'idle' };
    if (this.#pending.length === 0) return;

    let hold: CoordinationHold | undefined;
    try {
      hold = this.#tryEnter();
    } catch (error) {
      // Not contention (EACCES, ENOSPC, …): nobody in this batch can make progress.
      for (const item of this.#takeAll()) item.fail(error);
      return;
    }

    if (hold !== undefined) {
      // Serve the batch under this one hold, synchronously, then let go at once: shared
      // coordination is what keeps unlinkers out while each thread file is opened and locked.
      // A batch is served for at most SERVE_BUDGET_MS of this thread's time (at least one item):
      // creating a lock file is a disk operation, and 32 resumes released at once would
      // otherwise hold every other request for all of them (bench case `resume-under-lock`,
      // K=32). The rest go in the next tick,
      // at once, each chunk under its own hold.
      const startedAt = this.#clock.now();
      const batch = this.#takeAll();
      let served = 0;
      try {
        while (served < batch.length && (served === 0 || this.#clock.now() - startedAt < SERVE_BUDGET_MS)) {
          const item = batch[served++]!;
          try {
            item.settle({ kind: 'served', value: item.serve() });
          } catch (error) {
            item.fail(error);
          }
        }
      } finally {
        hold.exit();
      }
      if (served < batch.length) {
        this.#pending = [...batch.slice(served), ...this.#pending];
        this.#arm(this.#clock.now());
      }
      return;
    }

    // Contended: each item keeps its own deadline; the survivors wait for the next attempt.
    const now = this.#clock.now();
    const survivors: PendingItem[] = [];
    for (const item of this.#takeAll()) {
      if (item.deadline <= now) item.settle({ kind: 'timedOut' });
      else survivors.push(item);
    }
    this.#pending = survivors;
    if (survivors.length === 0) return;
    if (this.#nextPollAt <= now) this.#nextPollAt = now + this.#intervalMs;
    const earliestDeadline = Math.min(...survivors.map((item) => item.deadline));
    this.#arm(Math.min(this.#nextPollAt, earliestDeadline));
  }

  #arm(dueAt: number): void {
    const delay = Math.max(0, dueAt - this.#clock.now());
    const timer = this.#clock.setTimeout(() => this.#tick(), delay);
    this.#state = { kind: 'waiting', timer, dueAt };
  }

  #takeAll(): PendingItem[] {
    const taken = this.#pending;
    this.#pending = [];
    return taken;
  }
}
