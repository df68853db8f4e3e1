// Thread ownership in the PostgreSQL thread store, behind the same seam as the file-based locks
// (writer-lock-backend.ts). Acquiring a thread is one statement that bumps its epoch and names
// this host as owner, unless a live host owns it (src/common/postgres/thread-ownership.ts); the
// epoch goes to the thread's actor, and the store refuses every append made under an older one
// (fenced-append.ts). So, unlike a lock on a file, this one cannot be outlived by a paused
// writer: the store itself turns it away.
//
// Release is synchronous for the host, as the contract requires: ownership is given up at once
// here, and the statement that frees the row runs in the background with a deadline. The
// unloader waits for it (`cleared`) a little, so the next host can take over at once; if the
// statement fails, the row frees itself when this host's lease lapses.
import { basename } from 'node:path';
import type { Pool } from 'pg';
import { rolloutPathFor } from '../../../common/rollout/rollout-path.js';
import type { LogFn } from '../../../common/log.js';
import { acquireThread, releaseThread } from '../../../common/postgres/thread-ownership.js';
import type { HostMembership } from '../../fleet/host-membership.js';
import type { AcquireOptions, AcquireResult, LockLoss, ReleaseResult, WriterLock, WriterLockBackend } from '../writer-lock-backend.js';

/** As the other backends: an acquisition gives up after 30 s. */
const DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000;
// A release statement slower than this is left to the lease.
const RELEASE_DEADLINE_MS = 5_000;

export interface PostgresWriterLock extends WriterLock {
  readonly fencing: { readonly epoch: number; readonly nextLine: number };
  /** The registration the thread is owned under. */
  readonly hostId: string;
}

interface OwnedLock extends PostgresWriterLock {
  released: boolean;
  clearing: Promise<void> | null;
}

export interface PostgresWriterLocksOptions {
  pool: Pool;
  membership: HostMembership;
  log: LogFn;
  timeoutMs?: number;
}

export class PostgresWriterLocks implements WriterLockBackend<PostgresWriterLock> {
  readonly #options: PostgresWriterLocksOptions;
  readonly #owned = new Map<string, OwnedLock>();
  /** Release statements still in flight. */
  readonly #clearing = new Set<Promise<void>>();
  /**
   * Threads with an acquisition in flight. A second one for the same thread is refused before it
   * reaches the store: there it would bump the epoch again and fence the first's writer.
   */
  readonly #acquiring = new Set<string>();

  constructor(options: PostgresWriterLocksOptions) {
    this.#options = options;
  }

  async acquire(threadId: string, options: AcquireOptions = {}): Promise<AcquireResult<PostgresWriterLock>> {
    if (this.#owned.has(threadId) || this.#acquiring.has(threadId)) return { kind: 'activeWriter' };
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS;
    const startedAt = performance.now();
    this.#acquiring.add(threadId);
    try {
      const hostId = await this.#options.membership.currentHostId(timeoutMs);
      if (hostId === null) return { kind: 'timedOut', cause: 'this host is not registered with the thread store (its lease lapsed and registering again has not succeeded)' };
      const left = Math.max(0, timeoutMs - (performance.now() - startedAt));
      const { newThread } = options;
      const request = { threadId, hostId, create: newThread !== undefined, takeArchived: options.takeArchived === true, ...(newThread === undefined ? {} : { createdAtMs: newThread.createdAtMs, historyMode: newThread.historyMode, rolloutName: basename(rolloutPathFor('', threadId, newThread.createdAtMs)) }) };
      const outcome = await acquireThread(this.#options.pool, request, { deadlineMs: left });
      if (outcome.kind === 'notFound') return { kind: 'timedOut', cause: `thread ${threadId} is no longer in the thread store` };
      if (outcome.kind === 'ownedElsewhere') return { kind: 'activeWriter', ownerEndpoint: outcome.endpoint };
      if (outcome.kind === 'archived') return { kind: 'archived' };
      const lock: OwnedLock = { threadId, hostId, fencing: { epoch: outcome.epoch, nextLine: outcome.nextOrdinal }, lease: null, released: false, clearing: null };
      this.#owned.set(threadId, lock);
      return { kind: 'acquired', lock };
    } catch (error) {
      return { kind: 'timedOut', cause: (error as Error).message };
    } finally {
      this.#acquiring.delete(threadId);
    }
  }

  release(lock: PostgresWriterLock): ReleaseResult {
    const owned = this.#owned.get(lock.threadId);
    if (owned === undefined || owned !== lock || owned.released) return 'alreadyReleased';
    owned.released = true;
    this.#owned.delete(lock.threadId);
    const { pool, log } = this.#options;
    owned.clearing = releaseThread(pool, { threadId: owned.threadId, hostId: owned.hostId, epoch: owned.fencing.epoch }, { deadlineMs: RELEASE_DEADLINE_MS })
      .then(() => undefined)
      .catch((error: unknown) => log('warn', 'releasing a thread in the thread store failed; it is free once this host lease lapses', { threadId: owned.threadId, error: String(error) }));
    const clearing = owned.clearing;
    this.#clearing.add(clearing);
    void clearing.finally(() => this.#clearing.delete(clearing));
    return 'leftBehind';
  }

  cleared(lock: PostgresWriterLock): Promise<void> {
    return (lock as OwnedLock).clearing ?? Promise.resolve();
  }

  /** Every owned thread, as lost: the registration they were owned under lapsed. */
  lostAll(message: string): LockLoss[] {
    const losses = [...this.#owned.values()].map((lock) => ({ threadId: lock.threadId, message }));
    for (const lock of this.#owned.values()) lock.released = true;
    this.#owned.clear();
    return losses;
  }

  ownedCount(): number {
    return this.#owned.size;
  }

  pendingCount(): number {
    return this.#acquiring.size;
  }

  close(): ReadonlyMap<string, ReleaseResult> {
    const results = new Map<string, ReleaseResult>();
    for (const lock of [...this.#owned.values()]) results.set(lock.threadId, this.release(lock));
    return results;
  }

  /** Shutdown waits for the release statements (each has its deadline), so the next host takes over at once. */
  async settled(): Promise<void> {
    await Promise.all([...this.#clearing]);
  }
}
