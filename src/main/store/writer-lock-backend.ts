// The seam every writer-lock implementation plugs into. A thread has one writer across every
// process that shares a home; the backend is what enforces it. Today's backend is `flock` on
// `<home>/thread-writer-locks/` (the reference's protocol, so thread-host and codex exclude
// each other); others (a lockfile backend for network homes) implement the same contract.
//
// The contract, whatever the mechanism:
//   - `acquire` never blocks the event loop: waiting for a contended coordination step costs a
//     timer, and ends at the deadline with 'timedOut';
//   - 'activeWriter' is answered at once when another live owner holds the thread;
//   - `release` is synchronous, never waits, and always gives up ownership; what it cannot
//     clean up at once (a file it may not delete while coordination is contended) it leaves to
//     its own janitor;
//   - `close` releases everything still owned (shutdown).

import type { WriterLease } from '../../common/writer-lease.js';
import type { HistoryMode } from '../../common/rollout/rollout-reader.js';

/** Ownership of one thread's writer lock, as handed out by a backend. */
export interface WriterLock {
  readonly threadId: string;
  /** Set once by `release`. */
  readonly released: boolean;
  /**
   * For a lock that can expire while its process lives (lockfile): the lease the thread's actor
   * checks before every write (src/common/writer-lease.ts). Absent for flock.
   */
  readonly lease?: WriterLease | null;
  /**
   * For a store that fences writers itself (PostgreSQL): the epoch this acquisition got, which
   * every append must still match, and the store's next line for the thread then. Absent for
   * locks on a home's files.
   */
  readonly fencing?: { readonly epoch: number; readonly nextLine: number } | null;
}

/**
 * How an acquisition ended. 'activeWriter': another owner (another live process, or this
 * process for the same thread) holds the thread. 'timedOut': coordination stayed contended past
 * the deadline, or the lock kept answering as if another host were changing it (`cause` says
 * how); nothing was taken.
 */
export type AcquireResult<Lock extends WriterLock = WriterLock> =
  | { kind: 'acquired'; lock: Lock }
  | { kind: 'activeWriter'; /** A store that knows the owner (PostgreSQL): the URL its host advertised ('' when none). */ ownerEndpoint?: string }
  | { kind: 'timedOut'; cause?: string }
  /** A store that keeps archiving itself (PostgreSQL) holds the thread archived, and `takeArchived` was not asked. */
  | { kind: 'archived' };

/**
 * How a release ended. Ownership is given up in every case. 'unlinked': nothing is left
 * behind. 'leftBehind': the lock's file stays and the backend's janitor removes it later.
 */
export type ReleaseResult = 'unlinked' | 'leftBehind' | 'alreadyReleased';

/**
 * A lock this host owned is no longer its own (a lockfile heartbeat failed, or another host took
 * the lock over after a stall). flock locks cannot be lost while the process lives.
 */
export interface LockLoss {
  readonly threadId: string;
  readonly message: string;
}

export interface AcquireOptions {
  timeoutMs?: number;
  /**
   * thread/start: what a store that keeps threads itself (PostgreSQL) records of a new one.
   * Absent for a resume, which never creates a thread there. Backends on a home's files ignore it.
   */
  newThread?: { createdAtMs: number; historyMode: HistoryMode };
  /**
   * For a store that keeps archiving itself (PostgreSQL): take an archived thread too (archiving
   * and deleting it); otherwise, a thread archived meanwhile is answered 'archived', so that a
   * load never holds one. Backends on a home's files ignore it (an archived rollout is found by
   * no load there).
   */
  takeArchived?: boolean;
}

/** Acquires and releases thread writer locks for one home. */
export interface WriterLockBackend<Lock extends WriterLock = WriterLock> {
  acquire(threadId: string, options?: AcquireOptions): Promise<AcquireResult<Lock>>;
  release(lock: Lock): ReleaseResult;
  /**
   * For a release that left something behind which still keeps other hosts out (a lockfile
   * directory waiting for its janitor): resolves once it is gone. Callers wait with a deadline,
   * so a thread's unload is announced after the lock is free whenever that comes quickly.
   * Backends whose leftovers never keep anyone out (flock) do not implement it.
   */
  cleared?(lock: Lock): Promise<void>;
  /**
   * Loads what the first acquisition would otherwise load on a request's path (flock: its
   * native binding); called in the background once the host is up. Optional.
   */
  prepare?(): void;
  /** Locks currently owned through this backend. */
  ownedCount(): number;
  /** Acquisitions waiting for coordination. */
  pendingCount(): number;
  /** Shutdown: rejects waiting acquisitions and releases every owned lock, by thread id. */
  close(): ReadonlyMap<string, ReleaseResult>;
  /**
   * For a backend whose work on the home can outlive close() (an asynchronous attempt at
   * coordination in flight): resolves once it is over. Backends that work synchronously (flock)
   * do not implement it.
   */
  settled?(): Promise<void>;
}
