// The lockfile writer-lock backend, for homes on network filesystems: one mkdir lock per thread,
// `<home>/thread-writer-lockdirs/<thread-id>.lock/`, kept fresh by proper-lockfile's heartbeat.
// Same contract and wire behaviour as the flock backend; the protocol:
//
//   acquire  = under coordination: mkdir <id>.lock (or, if its mtime is older than staleMs,
//              remove it and mkdir: the takeover of a dead or stalled owner's lock)
//   release  = synchronous: ownership ends in memory at once; the directory goes to the janitor,
//              which removes it under coordination (rmdir), heartbeat running until then
//   lost     = the heartbeat finds the directory gone, changed by someone else, or not
//              refreshed within staleMs: `onLost` tells the host to stop writing the thread
//
// Coordination (`.coordination.lock/`, itself a mkdir lock with a heartbeat) is exclusive:
// mkdir has no shared mode. It serializes check-and-create against every removal, which is
// where the protocol needs it (see lock-dir.ts), and a burst of acquisitions shares one hold.
// Nothing here touches the disk synchronously: a network stat can take seconds.
import { fsPromises } from '../../../../lazy-builtin.js';
import { type Clock, systemClock } from '../../../../../common/clock.js';
import type { LogFn } from '../../../../../common/log.js';
import type { AcquireResult as BackendAcquireResult, LockLoss, ReleaseResult, WriterLock, WriterLockBackend } from '../../../writer-lock-backend.js';

export type { LockLoss };
import { endLease, type WriterLease } from '../../../../../common/writer-lease.js';
import { assertLockableId } from '../lockable-id.js';
import { type AsyncCoordinationHold, CoordinationQueue, SERVE_AGAIN } from './coordination-queue.js';
import { type HeldLockDir, type LockDirPaths, type LockDirTiming, lockDirPaths, threadLockDir, tryLockDir } from './lock-dir.js';
import { lockStatFault } from './lock-stat-fault.js';
import { LockfileJanitor, type LockfileJanitorOutcome } from './lockfile-janitor.js';

/** As the flock backend: 30 s for coordination (Codex's figure), polled every 50 ms. */
export const DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000;
export const DEFAULT_POLL_INTERVAL_MS = 50;

/** Ownership of one thread's lock directory; its lease is extended by every heartbeat. */
export interface LockfileWriterLock extends WriterLock {
  readonly path: string;
  readonly lease: WriterLease;
}

export type AcquireResult = BackendAcquireResult<LockfileWriterLock>;


export interface LockfileWriterLocksOptions extends LockDirTiming {
  timeoutMs?: number;
  pollIntervalMs?: number;
  clock?: Clock;
  log?: LogFn;
  /** Called once per owned lock that is compromised; the host must stop writing the thread. */
  onLost?: (loss: LockLoss) => void;
  /** The host's environment, read only for a test fault switch (lock-stat-fault.ts). */
  faultEnv?: NodeJS.ProcessEnv;
  /** Observation hook for tests: a released directory was removed (or found gone). */
  onJanitorRemoved?: (threadId: string, outcome: LockfileJanitorOutcome) => void;
}

/** The mutable twin of LockfileWriterLock; only this module flips `released`. */
interface OwnedLock {
  readonly threadId: string;
  readonly path: string;
  readonly lease: WriterLease;
  dir: HeldLockDir;
  released: boolean;
}

type BackendState = 'open' | 'closed';

/** The lockfile backend: acquires and releases thread writer locks for one home. */
export class LockfileWriterLocks implements WriterLockBackend<LockfileWriterLock> {
  readonly #paths: LockDirPaths;
  readonly #timing: LockDirTiming;
  readonly #timeoutMs: number;
  readonly #queue: CoordinationQueue;
  readonly #janitor: LockfileJanitor;
  readonly #owned = new Map<string, OwnedLock>();
  readonly #log: LogFn;
  readonly #onLost: (loss: LockLoss) => void;
  #dirReady: Promise<unknown> | null = null;
  #state: BackendState = 'open';

  constructor(home: string, options: LockfileWriterLocksOptions) {
    const clock = options.clock ?? systemClock;
    this.#paths = lockDirPaths(home);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
    this.#log = options.log ?? (() => undefined);
    const fs = options.fs ?? lockStatFault(options.faultEnv ?? {}, this.#log);
    this.#timing = { staleMs: options.staleMs, updateMs: options.updateMs, ...(fs === undefined ? {} : { fs }) };
    this.#onLost = options.onLost ?? (() => undefined);
    this.#queue = new CoordinationQueue({
      clock,
      pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      tryEnter: () => this.#tryEnterCoordination(),
      onBackgroundError: (error) => this.#log('warn', 'leaving writer coordination failed', { error: String(error) }),
    });
    this.#janitor = new LockfileJanitor({
      clock,
      queue: this.#queue,
      ...(options.onJanitorRemoved === undefined ? {} : { onRemoved: options.onJanitorRemoved }),
      onError: (threadId, error) => this.#log('warn', 'removing a released writer lock failed', { threadId, error: String(error) }),
    });
  }

  /**
   * Take the writer lock for `threadId`. Rejects only on unexpected I/O errors or after close().
   * An owner in this process is answered from memory; everything else waits on timers.
   */
  async acquire(threadId: string, options: { timeoutMs?: number } = {}): Promise<AcquireResult> {
    if (this.#state === 'closed') throw new Error('writer lock manager is closed');
    assertLockableId(threadId);
    if (this.#owned.has(threadId)) return { kind: 'activeWriter' };
    const contention: { last: NodeJS.ErrnoException | null } = { last: null };
    const outcome = await this.#queue.enqueue(
      () => this.#take(threadId, contention),
      options.timeoutMs ?? this.#timeoutMs,
      // Taken after the caller gave up: nobody will ever release it, so do it now.
      (late) => {
        if (late.kind === 'acquired') this.release(late.lock);
      },
    );
    if (outcome.kind === 'served') return outcome.value;
    return contention.last === null ? { kind: 'timedOut' } : { kind: 'timedOut', cause: `its lock directory kept answering ${contention.last.message}` };
  }

  /**
   * Give up ownership. Synchronous and never waits: ownership ends here, and the directory is
   * removed by the janitor under coordination (so the result is always 'leftBehind'). Idempotent.
   */
  release(lock: LockfileWriterLock): ReleaseResult {
    const owned = this.#owned.get(lock.threadId);
    if (lock.released || owned !== lock) return 'alreadyReleased';
    owned.released = true;
    this.#owned.delete(lock.threadId);
    this.#janitor.add(lock.threadId, owned.dir);
    this.#log('info', 'writer lock released', { threadId: lock.threadId, result: 'leftBehind' });
    return 'leftBehind';
  }

  /** Resolves once the janitor has removed the released lock's directory (or it was adopted or lost). */
  cleared(lock: LockfileWriterLock): Promise<void> {
    return this.#janitor.cleared((lock as OwnedLock).dir);
  }

  ownedCount(): number {
    return this.#owned.size;
  }

  pendingCount(): number {
    return this.#queue.pendingCount();
  }

  /** Released directories the janitor has not removed yet. */
  leftoverCount(): number {
    return this.#janitor.count();
  }

  /**
   * Shutdown: rejects waiting acquisitions and gives up every owned lock. The directories still
   * held (owned or released) are removed by proper-lockfile's exit hook when the process exits;
   * one that survives a crash goes stale after staleMs. Idempotent.
   */
  close(): ReadonlyMap<string, ReleaseResult> {
    const results = new Map<string, ReleaseResult>();
    if (this.#state === 'closed') return results;
    this.#state = 'closed';
    for (const lock of [...this.#owned.values()]) results.set(lock.threadId, this.release(lock));
    this.#queue.close();
    this.#janitor.stop();
    return results;
  }

  /**
   * After close(): resolves once this backend no longer touches the home. An attempt at
   * coordination already in flight at close runs to its end (a syscall cannot be cancelled) and
   * gives coordination back; shutdown waits for that, with a deadline.
   */
  settled(): Promise<void> {
    return this.#queue.settled();
  }

  // Runs under coordination.
  // `contention.last`: the ESTALE of the latest attempt, served again at the next hold.
  async #take(threadId: string, contention: { last: NodeJS.ErrnoException | null }): Promise<AcquireResult | typeof SERVE_AGAIN> {
    const adopted = this.#janitor.tryAdopt(threadId);
    if (adopted !== undefined) return { kind: 'acquired', lock: this.#own(threadId, adopted) };
    await this.#ensureDir();
    const path = threadLockDir(this.#paths, threadId);
    // The heartbeat starts only once the lock is held, so `held.dir` is set before it can fire.
    const held: { dir?: HeldLockDir } = {};
    const attempt = await tryLockDir(path, this.#timing, (error) => this.#compromised(threadId, held.dir, error));
    if (attempt.kind === 'contended' && attempt.transient !== undefined) {
      contention.last = attempt.transient;
      this.#log('warn', 'a thread lock directory answered as if another host were changing it; retrying', { threadId, error: attempt.transient.message });
      return SERVE_AGAIN;
    }
    if (attempt.kind === 'contended') return { kind: 'activeWriter' };
    held.dir = attempt.dir;
    return { kind: 'acquired', lock: this.#own(threadId, attempt.dir) };
  }

  #own(threadId: string, dir: HeldLockDir): OwnedLock {
    const lock: OwnedLock = { threadId, path: dir.path, lease: dir.lease, dir, released: false };
    this.#owned.set(threadId, lock);
    return lock;
  }

  // proper-lockfile has stopped the heartbeat and forgotten the directory; it is not ours now.
  #compromised(threadId: string, dir: HeldLockDir | undefined, error: Error): void {
    // First of all, and synchronously: the actor checks the lease before every write.
    if (dir !== undefined) endLease(dir.lease);
    const owned = this.#owned.get(threadId);
    if (dir !== undefined) this.#janitor.forget(threadId, dir);
    if (owned === undefined || owned.dir !== dir) {
      this.#log('warn', 'a released writer lock was compromised before removal', { threadId, error: error.message });
      return;
    }
    owned.released = true;
    this.#owned.delete(threadId);
    this.#log('error', 'writer lock lost', { threadId, error: error.message });
    this.#onLost({ threadId, message: error.message });
  }

  async #tryEnterCoordination(): Promise<AsyncCoordinationHold | undefined> {
    await this.#ensureDir();
    const attempt = await tryLockDir(this.#paths.coordination, this.#timing, (error) =>
      // Held for milliseconds at a time; only a stall longer than staleMs gets here. The thread
      // locks stay correct (mkdir is atomic); only a concurrent takeover could be confused.
      this.#log('warn', 'writer coordination lock compromised while held', { error: error.message }),
    );
    if (attempt.kind === 'contended') {
      if (attempt.transient !== undefined) this.#log('warn', 'the coordination lock directory answered as if another host were changing it; retrying', { error: attempt.transient.message });
      return undefined;
    }
    return { exit: () => attempt.dir.release() };
  }

  #ensureDir(): Promise<unknown> {
    // Once per backend; a failure is retried by the next caller.
    this.#dirReady ??= fsPromises().mkdir(this.#paths.dir, { recursive: true }).catch((error: unknown) => {
      this.#dirReady = null;
      throw error;
    });
    return this.#dirReady;
  }
}
