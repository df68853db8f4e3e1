// Removes the lock directories this process has released. A release is synchronous and never
// waits (the unload path calls it), but removing a directory is a disk operation that must
// happen under coordination: a takeover in progress elsewhere has judged the directory stale
// and is about to remove it, and a removal of ours in between would let it remove the next
// owner's fresh one instead. So a release hands its directory here; the directory keeps its
// heartbeat (nobody mistakes it for a dead owner's) until a run under coordination removes it.
// Until then this process may adopt it back, as a flock owner reuses a leftover file.
import type { Clock } from '../../../../../common/clock.js';
import { endLease } from '../../../../../common/writer-lease.js';
import type { HeldLockDir } from './lock-dir.js';
import type { CoordinationQueue } from './coordination-queue.js';

/** First run comes at once: coordination is usually free and the next owner is waiting. */
export const JANITOR_FIRST_DELAY_MS = 0;
/** Backoff doubles up to this while coordination stays contended. */
export const JANITOR_MAX_DELAY_MS = 5_000;
/** How long one run may wait for coordination before backing off. */
export const JANITOR_RUN_TIMEOUT_MS = 2_000;

/** What became of one directory: removed, or already gone or taken from us (compromised). */
export type LockfileJanitorOutcome = 'removed' | 'gone';

type JanitorState = { kind: 'idle' } | { kind: 'scheduled'; timer: unknown } | { kind: 'running' } | { kind: 'stopped' };

export interface LockfileJanitorOptions {
  clock: Clock;
  queue: CoordinationQueue;
  onRemoved?: (threadId: string, outcome: LockfileJanitorOutcome) => void;
  onError: (threadId: string, error: unknown) => void;
}

/** Background removal of released lock directories, always under coordination. */
export class LockfileJanitor {
  readonly #options: LockfileJanitorOptions;
  readonly #leftovers = new Map<string, HeldLockDir>();
  /** Waiters for `cleared`, by directory: settled when it is removed, found gone, or adopted. */
  readonly #waiters = new Map<HeldLockDir, Array<() => void>>();
  #state: JanitorState = { kind: 'idle' };
  #delayMs = JANITOR_FIRST_DELAY_MS;

  constructor(options: LockfileJanitorOptions) {
    this.#options = options;
  }

  /** Takes over a released directory and schedules its removal. */
  add(threadId: string, dir: HeldLockDir): void {
    if (this.#state.kind === 'stopped') return;
    this.#leftovers.set(threadId, dir);
    this.#delayMs = JANITOR_FIRST_DELAY_MS;
    this.#schedule();
  }

  /** Hands a leftover back to a new owner in this process (its heartbeat never stopped). */
  tryAdopt(threadId: string): HeldLockDir | undefined {
    const dir = this.#leftovers.get(threadId);
    this.#leftovers.delete(threadId);
    if (dir !== undefined) this.#settle(dir);
    return dir;
  }

  /** The heartbeat found a leftover compromised: it is no longer ours to remove. */
  forget(threadId: string, dir: HeldLockDir): void {
    if (this.#leftovers.get(threadId) !== dir) return;
    this.#leftovers.delete(threadId);
    this.#settle(dir);
  }

  /** Resolves once `dir` no longer waits here (at once if it never did). */
  cleared(dir: HeldLockDir): Promise<void> {
    if (![...this.#leftovers.values()].includes(dir)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.set(dir, [...(this.#waiters.get(dir) ?? []), resolve]));
  }

  #settle(dir: HeldLockDir): void {
    const waiters = this.#waiters.get(dir) ?? [];
    this.#waiters.delete(dir);
    for (const resolve of waiters) resolve();
  }

  /** Directories waiting for removal. */
  count(): number {
    return this.#leftovers.size;
  }

  /** Stops scheduling; leftovers are removed by proper-lockfile's exit hook or go stale. */
  stop(): ReadonlyMap<string, HeldLockDir> {
    if (this.#state.kind === 'scheduled') this.#options.clock.clearTimeout(this.#state.timer);
    this.#state = { kind: 'stopped' };
    return new Map(this.#leftovers);
  }

  #schedule(): void {
    if (this.#state.kind !== 'idle' || this.#leftovers.size === 0) return;
    const timer = this.#options.clock.setTimeout(() => void this.#run(), this.#delayMs);
    this.#state = { kind: 'scheduled', timer };
  }

  async #run(): Promise<void> {
    if (this.#state.kind === 'stopped') return;
    this.#state = { kind: 'running' };
    const outcome = await this.#options.queue
      .enqueue(() => this.#removeAll(), JANITOR_RUN_TIMEOUT_MS, () => undefined)
      .catch(() => ({ kind: 'timedOut' as const }));
    // close() may have stopped the janitor while the run waited.
    if ((this.#state as JanitorState).kind === 'stopped') return;
    this.#state = { kind: 'idle' };
    // Contended (or closed): back off, doubling; a leftover keeps its heartbeat meanwhile.
    this.#delayMs = outcome.kind === 'served' ? JANITOR_FIRST_DELAY_MS : Math.min(JANITOR_MAX_DELAY_MS, Math.max(250, this.#delayMs * 2));
    this.#schedule();
  }

  // Runs under coordination. A directory adopted meanwhile is no longer in the map and stays.
  async #removeAll(): Promise<void> {
    for (const [threadId, dir] of [...this.#leftovers]) {
      if (this.#leftovers.get(threadId) !== dir) continue;
      this.#leftovers.delete(threadId);
      // Nobody may write under a directory about to be removed (an adopted one left the map).
      endLease(dir.lease);
      try {
        await dir.release();
        this.#options.onRemoved?.(threadId, 'removed');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // ERELEASED: compromised under us; ENOENT: someone removed it. Either way not ours now.
        if (code === 'ERELEASED' || code === 'ENOENT') this.#options.onRemoved?.(threadId, 'gone');
        else this.#options.onError(threadId, error);
      } finally {
        this.#settle(dir);
      }
    }
  }
}
