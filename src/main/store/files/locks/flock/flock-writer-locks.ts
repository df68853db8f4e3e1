// The flock writer-lock backend: per-thread writer locks compatible with Codex app-server sharing the same home (spec §1–3):
// `<home>/thread-writer-locks/<thread-id>.lock`, flocked EX|NB and held by keeping the fd open
// for the thread's loaded life. Creating/locking happens under SHARED coordination, deleting
// under EXCLUSIVE coordination (see coordination-lock.ts for why).
//
// Every critical section below is synchronous: flock with LOCK_NB never blocks, and keeping
// open+lock (or close+unlink) inside one iteration of the event loop means nothing else in this
// process can interleave while we hold coordination. Only *waiting* is asynchronous, and that
// is the poller's timer.
import { closeSync, openSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type Clock, systemClock } from '../../../../../common/clock.js';
import type { LogFn } from '../../../../../common/log.js';
import {
  LOCK_FILE_FLAGS,
  LOCK_FILE_MODE,
  type WriterLockPaths,
  tryEnterCoordination,
  writerLockPaths,
} from './coordination-lock.js';
import { CoordinationPoller } from '../coordination-poller.js';
import { prepareFlock, tryFlock } from './flock.js';
import { assertLockableId } from '../lockable-id.js';
import { type JanitorEvent, LockJanitor } from './lock-janitor.js';
import { sweepStaleThreadLocks } from './stale-lock-sweep.js';
import type { AcquireResult as BackendAcquireResult, ReleaseResult, WriterLock, WriterLockBackend } from '../../../writer-lock-backend.js';

/** Codex waits 30 s for coordination before failing thread/start or thread/resume (spec §2). */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000;
/** Codex polls LOCK_SH|LOCK_NB every 50 ms while coordination is contended (spec §1.3). */
export const DEFAULT_POLL_INTERVAL_MS = 50;

/** Ownership of one thread's writer lock; the open `fd` *is* the flock. */
export interface ThreadWriterLock extends WriterLock {
  readonly path: string;
  readonly fd: number;
}

/** 'activeWriter' here means another open file description owns the thread's flock. */
export type AcquireResult = BackendAcquireResult<ThreadWriterLock>;
export type { ReleaseResult };

/** Construction options; defaults match Codex 0.171.0. */
export interface FlockWriterLocksOptions {
  timeoutMs?: number;
  pollIntervalMs?: number;
  clock?: Clock;
  /** Janitor tuning (delays, attempts, batch) and an observation hook, mainly for tests and logs. */
  janitor?: { baseDelayMs?: number; maxDelayMs?: number; maxAttempts?: number; batchSize?: number };
  onJanitorEvent?: (event: JanitorEvent) => void;
  /** Where releases are reported (info level), with their threadId. */
  log?: LogFn;
}

/** The mutable twin of ThreadWriterLock; only this module flips `released`. */
interface OwnedLock {
  readonly threadId: string;
  readonly path: string;
  readonly fd: number;
  released: boolean;
}

/**
 * Codex runs the stale sweep only on a process's first acquisition, and only if exclusive
 * coordination is free at that moment; otherwise never (spec §1.3). We do the same per manager
 * (one per process in production; a second manager on the same home is still safe, because the
 * sweep cannot lock, and so never deletes, a file any live description owns).
 */
type SweepState = 'notYetTried' | 'done';

type ManagerState = 'open' | 'closed';

/** The flock backend: acquires and releases thread writer locks for one home. */
export class FlockWriterLocks implements WriterLockBackend<ThreadWriterLock> {
  readonly #paths: WriterLockPaths;
  readonly #timeoutMs: number;
  readonly #poller: CoordinationPoller;
  readonly #janitor: LockJanitor;
  readonly #owned = new Map<string, OwnedLock>();
  readonly #log: LogFn;
  #sweep: SweepState = 'notYetTried';
  #state: ManagerState = 'open';

  constructor(home: string, options: FlockWriterLocksOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.#paths = writerLockPaths(home);
    this.#log = options.log ?? (() => undefined);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
    this.#poller = new CoordinationPoller({
      clock,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      tryEnter: () => tryEnterCoordination(this.#paths, 'shared'),
    });
    this.#janitor = new LockJanitor(this.#paths, {
      clock,
      ...options.janitor,
      ...(options.onJanitorEvent === undefined ? {} : { onEvent: options.onJanitorEvent }),
    });
  }

  /**
   * Take the writer lock for `threadId`. Rejects only on unexpected I/O errors or after close().
   * Never blocks: a contended coordination lock is waited for by the shared poller's timer.
   */
  async acquire(threadId: string, options: { timeoutMs?: number } = {}): Promise<AcquireResult> {
    if (this.#state === 'closed') throw new Error('writer lock manager is closed');
    assertLockableId(threadId);

    if (this.#sweep === 'notYetTried') {
      // Flip before trying, so a second acquisition in the same tick goes straight to polling.
      this.#sweep = 'done';
      const hold = tryEnterCoordination(this.#paths, 'exclusive');
      if (hold !== undefined) {
        try {
          sweepStaleThreadLocks(this.#paths.dir);
          // Exclusive coordination excludes unlinkers at least as well as shared does.
          return this.#openThreadLock(threadId);
        } finally {
          hold.exit();
        }
      }
      // Someone holds coordination: skip the sweep for good, as Codex does, and poll shared.
    }

    const outcome = await this.#poller.enqueue(() => this.#openThreadLock(threadId), options.timeoutMs ?? this.#timeoutMs);
    return outcome.kind === 'served' ? outcome.value : { kind: 'timedOut' };
  }

  /**
   * Give up ownership. Synchronous and never waits (the unload path calls it): one EX|NB try on
   * coordination; on success close then unlink; otherwise close only and leave the file to the
   * janitor. Idempotent.
   */
  release(lock: ThreadWriterLock): ReleaseResult {
    const result = this.#release(lock);
    if (result !== 'alreadyReleased') this.#log('info', 'writer lock released', { threadId: lock.threadId, result });
    return result;
  }

  #release(lock: ThreadWriterLock): ReleaseResult {
    const owned = this.#owned.get(lock.threadId);
    if (lock.released || owned !== lock) return 'alreadyReleased';
    owned.released = true;
    this.#owned.delete(lock.threadId);

    let hold;
    try {
      hold = tryEnterCoordination(this.#paths, 'exclusive');
    } catch {
      // Could not even open coordination (directory removed, EACCES…). Ownership must still go:
      // close the fd and let the janitor retry the deletion later.
      hold = undefined;
    }
    if (hold === undefined) {
      // Contended: release ownership at once (closing drops the flock) but do not unlink; an
      // opener may be between open() and flock() on this very inode.
      closeSync(owned.fd);
      this.#janitor.add(owned.path);
      return 'leftBehind';
    }
    try {
      // Close BEFORE unlink (Codex does this "so cleanup works on Windows too"). Under exclusive
      // coordination nobody can open+lock the file between the two, so the unlinked file is unowned.
      closeSync(owned.fd);
      unlinkOrGone(owned.path);
    } finally {
      hold.exit();
    }
    return 'unlinked';
  }

  /** Loads the flock binding ahead of the first acquisition (host/warm-up.ts). */
  prepare(): void {
    prepareFlock();
  }

  /** Locks currently owned through this manager. */
  ownedCount(): number {
    return this.#owned.size;
  }

  /** Acquisitions waiting for coordination. */
  pendingCount(): number {
    return this.#poller.pendingCount();
  }

  /**
   * Shutdown: rejects waiting acquisitions, releases every owned lock and stops the janitor
   * (leftovers wait for a later first-use sweep). Returns each release's result by thread id.
   * Idempotent; a second call returns an empty map.
   */
  close(): ReadonlyMap<string, ReleaseResult> {
    const results = new Map<string, ReleaseResult>();
    if (this.#state === 'closed') return results;
    this.#state = 'closed';
    this.#poller.close();
    for (const lock of [...this.#owned.values()]) results.set(lock.threadId, this.release(lock));
    this.#janitor.stop();
    return results;
  }

  /** Runs while holding coordination (shared or exclusive): open, then EX|NB, keeping the fd on success. */
  #openThreadLock(threadId: string): AcquireResult {
    const path = join(this.#paths.dir, `${threadId}.lock`);
    // No O_TRUNC and nothing written: only the kernel lock state means anything (spec §1.1).
    const fd = openSync(path, LOCK_FILE_FLAGS, LOCK_FILE_MODE);
    let attempt;
    try {
      attempt = tryFlock(fd, 'exclusive');
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (attempt === 'contended') {
      // Another live owner. Never delete a file we cannot exclusively lock.
      closeSync(fd);
      return { kind: 'activeWriter' };
    }
    const lock: OwnedLock = { threadId, path, fd, released: false };
    this.#owned.set(threadId, lock);
    return { kind: 'acquired', lock };
  }
}

function unlinkOrGone(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
