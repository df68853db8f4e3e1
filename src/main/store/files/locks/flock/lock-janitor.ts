// Removes thread lock files a contended release had to leave behind. Codex leaves them until
// the thread's next owner releases cleanly or some process's first-use sweep runs (spec §1.4);
// we retry a bounded number of times, off the request path, under the same rules as release:
// EXCLUSIVE coordination, an EX|NB try on the file, close before unlink.
import { existsSync } from 'node:fs';
import type { Clock } from '../../../../../common/clock.js';
import { type CoordinationHold, type WriterLockPaths, tryEnterCoordination } from './coordination-lock.js';
import { unlinkIfUnowned } from './stale-lock-sweep.js';

/** First retry comes this long after the release that left the file: contention is usually brief. */
export const JANITOR_BASE_DELAY_MS = 250;
/** Backoff doubles up to this, so a long-held coordination lock costs one attempt per 30 s at most. */
export const JANITOR_MAX_DELAY_MS = 30_000;
/** 250 ms doubling to 30 s: ten attempts span about two minutes, then the first-use sweep of a later process takes over. */
export const JANITOR_MAX_ATTEMPTS = 10;
/** Files handled per run, so one run never holds coordination (or the event loop) for long. */
export const JANITOR_BATCH_SIZE = 32;

/**
 * What happened to one leftover file on one attempt. Terminal: 'removed', 'owned' (a live
 * process holds it, and its own release will clean up), 'gone' (someone else removed it) and
 * 'gaveUp'. 'deferred' means coordination was busy (or an error occurred) and a retry is scheduled.
 */
export type JanitorOutcome = 'removed' | 'owned' | 'gone' | 'deferred' | 'gaveUp';

/** Reported after each attempt on a file; `attempt` counts from 1. */
export interface JanitorEvent {
  readonly path: string;
  readonly outcome: JanitorOutcome;
  readonly attempt: number;
  readonly error?: unknown;
}

/** Tuning and observation hooks; every number has a default above. */
export interface LockJanitorOptions {
  clock: Clock;
  baseDelayMs?: number;
  maxDelayMs?: number;
  maxAttempts?: number;
  batchSize?: number;
  onEvent?: (event: JanitorEvent) => void;
}

interface Entry {
  attempts: number;
  dueAt: number;
}

type JanitorState =
  | { kind: 'idle' }
  | { kind: 'scheduled'; timer: unknown; dueAt: number }
  | { kind: 'running' }
  | { kind: 'stopped' };

/** Background, bounded removal of unowned leftover lock files; its timers never keep the process alive. */
export class LockJanitor {
  readonly #paths: WriterLockPaths;
  readonly #clock: Clock;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #maxAttempts: number;
  readonly #batchSize: number;
  readonly #onEvent: (event: JanitorEvent) => void;
  readonly #entries = new Map<string, Entry>();
  #state: JanitorState = { kind: 'idle' };
  #armQueued = false;

  constructor(paths: WriterLockPaths, options: LockJanitorOptions) {
    this.#paths = paths;
    this.#clock = options.clock;
    this.#baseDelayMs = options.baseDelayMs ?? JANITOR_BASE_DELAY_MS;
    this.#maxDelayMs = options.maxDelayMs ?? JANITOR_MAX_DELAY_MS;
    this.#maxAttempts = options.maxAttempts ?? JANITOR_MAX_ATTEMPTS;
    this.#batchSize = options.batchSize ?? JANITOR_BATCH_SIZE;
    this.#onEvent = options.onEvent ?? (() => {});
  }

  /** Queue a leftover thread lock file. Idempotent: a path already queued keeps its schedule. */
  add(path: string): void {
    if (this.#state.kind === 'stopped' || this.#entries.has(path)) return;
    this.#entries.set(path, { attempts: 0, dueAt: this.#clock.now() + this.#baseDelayMs });
    // The timer is armed in the next iteration of the event loop, not here: add() runs inside an
    // unload, before its thread/closed is written, and a process's first timer of this length
    // delayed that announcement (bench case `locked-unload`). A burst of releases arms it once.
    if (this.#armQueued) return;
    this.#armQueued = true;
    this.#clock.setTimeout(() => {
      this.#armQueued = false;
      this.#schedule();
    }, 0);
  }

  /** Files still queued. */
  pendingCount(): number {
    return this.#entries.size;
  }

  /** Cancels the timer and forgets the queue; leftovers then wait for a later first-use sweep. Idempotent. */
  stop(): void {
    if (this.#state.kind === 'scheduled') this.#clock.clearTimeout(this.#state.timer);
    this.#state = { kind: 'stopped' };
    this.#entries.clear();
  }

  #schedule(): void {
    const state = this.#state;
    if (state.kind === 'running' || state.kind === 'stopped') return; // #run re-schedules when done
    let dueAt = Infinity;
    for (const entry of this.#entries.values()) dueAt = Math.min(dueAt, entry.dueAt);
    if (state.kind === 'scheduled') {
      if (state.dueAt <= dueAt) return;
      this.#clock.clearTimeout(state.timer);
      this.#state = { kind: 'idle' };
    }
    if (dueAt === Infinity) return;
    const timer = this.#clock.setTimeout(() => this.#run(), Math.max(0, dueAt - this.#clock.now()));
    unrefTimer(timer);
    this.#state = { kind: 'scheduled', timer, dueAt };
  }

  #run(): void {
    if (this.#state.kind === 'stopped') return;
    this.#state = { kind: 'running' };
    try {
      this.#runBatch();
    } finally {
      // Whatever happened, the janitor must survive to try again (one bad run cannot kill it).
      if (this.#state.kind === 'running') {
        this.#state = { kind: 'idle' };
        this.#schedule();
      }
    }
  }

  #runBatch(): void {
    const now = this.#clock.now();
    const due = [...this.#entries]
      .filter(([, entry]) => entry.dueAt <= now)
      .sort(([, a], [, b]) => a.dueAt - b.dueAt)
      .slice(0, this.#batchSize)
      .map(([path]) => path);

    // Outside any lock: files already gone are finished without touching coordination. One
    // stat each, from the dentry cache of the local file system this backend serves, in this
    // turn: K asynchronous access(2) calls, each answered in a callback of its own, held the
    // main thread at every retry of 32 leftovers (bench case `locked-unload`, K=32).
    const candidates: string[] = [];
    for (const path of due) {
      if (existsSync(path)) candidates.push(path);
      else this.#finish(path, 'gone');
    }
    // An event's listener may have stopped the janitor (a host closing its locks).
    if (candidates.length === 0 || this.#state.kind === 'stopped') return;

    // The locked section is synchronous on purpose: it holds EXCLUSIVE coordination for a few
    // syscalls instead of across thread-pool round trips, so other processes' acquirers wait
    // less, and this process's own acquire/release (also synchronous) never see it as contention.
    let hold: CoordinationHold | undefined;
    try {
      hold = tryEnterCoordination(this.#paths, 'exclusive');
    } catch (error) {
      for (const path of candidates) this.#defer(path, error);
      return;
    }
    if (hold === undefined) {
      for (const path of candidates) this.#defer(path);
      return;
    }
    try {
      for (const path of candidates) {
        try {
          this.#finish(path, unlinkIfUnowned(path));
        } catch (error) {
          this.#defer(path, error);
        }
      }
    } finally {
      hold.exit();
    }
  }

  #finish(path: string, outcome: 'removed' | 'owned' | 'gone'): void {
    const entry = this.#entries.get(path);
    if (entry === undefined) return;
    this.#entries.delete(path);
    this.#onEvent({ path, outcome, attempt: entry.attempts + 1 });
  }

  #defer(path: string, error?: unknown): void {
    const entry = this.#entries.get(path);
    if (entry === undefined) return;
    entry.attempts += 1;
    const base = { path, attempt: entry.attempts, ...(error === undefined ? {} : { error }) };
    if (entry.attempts >= this.#maxAttempts) {
      this.#entries.delete(path);
      this.#onEvent({ ...base, outcome: 'gaveUp' });
      return;
    }
    entry.dueAt = this.#clock.now() + Math.min(this.#baseDelayMs * 2 ** entry.attempts, this.#maxDelayMs);
    this.#onEvent({ ...base, outcome: 'deferred' });
  }
}

/** systemClock already unrefs; an injected clock may hand back a Node timer that does not. */
function unrefTimer(handle: unknown): void {
  if (typeof handle === 'object' && handle !== null && 'unref' in handle && typeof handle.unref === 'function') {
    handle.unref();
  }
}
