// One mkdir lock through proper-lockfile: `mkdir` is atomic on local and network filesystems
// alike (NFS, SMB, FUSE), where flock(2) taken on one machine may be invisible on another.
// The owner keeps the directory's mtime fresh (a heartbeat every `updateMs`); a directory not
// refreshed for `staleMs` belongs to a dead or stalled owner and may be taken over. Every call
// here is asynchronous (libuv's thread pool): a slow network stat never stalls the main thread.
import nodeFs from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { createLease, type WriterLease } from '../../../../../common/writer-lease.js';
import { MIN_HEARTBEATS_PER_STALE } from '../../../../config/lock-backend-config.js';
import { leaseGuardedFs } from './lease-guarded-fs.js';

/** Directory under the home holding the lockfile backend's lock directories. */
export const LOCKFILE_DIR = 'thread-writer-lockdirs';
/** The coordination lock's name; the leading dot keeps it apart from thread ids. */
export const COORDINATION_LOCK = '.coordination.lock';

/** Where a home's lock directories live. */
export interface LockDirPaths {
  readonly dir: string;
  readonly coordination: string;
}

export function lockDirPaths(home: string): LockDirPaths {
  const dir = join(home, LOCKFILE_DIR);
  return { dir, coordination: join(dir, COORDINATION_LOCK) };
}

/** The path of a thread's lock directory. */
export function threadLockDir(paths: LockDirPaths, threadId: string): string {
  return join(paths.dir, `${threadId}.lock`);
}

/** Heartbeat timing, and the fs proper-lockfile uses (tests inject faults through it). */
export interface LockDirTiming {
  staleMs: number;
  updateMs: number;
  fs?: unknown;
}

/** A held lock directory. `release` removes it (rmdir) and stops the heartbeat. */
export interface HeldLockDir {
  readonly path: string;
  /** Pushed forward by every heartbeat that refreshes the directory in time (lease-guarded-fs.ts). */
  readonly lease: WriterLease;
  release(): Promise<void>;
}

/**
 * How one attempt ended: held, or another owner's fresh directory is there, or the filesystem
 * answered in a way that means another client is changing the directory (`transient`).
 */
export type LockDirAttempt = { kind: 'held'; dir: HeldLockDir } | { kind: 'contended'; transient?: NodeJS.ErrnoException };

// ESTALE: an NFS client's handle for the directory (or its parent) names one another client
// removed meanwhile, as happens when a takeover races this attempt. It is contention, not a
// failure: the same attempt a moment later sees the new directory.
const CONTENTION_CODES: ReadonlySet<string | undefined> = new Set(['ESTALE']);

/**
 * One attempt at `path`, no retries; an ESTALE from the directory counts as contention. A directory whose mtime is older than `staleMs` is
 * removed and re-created (proper-lockfile's takeover): callers hold coordination around it,
 * because two takers racing on one stale directory could otherwise each remove the other's new
 * one. `onCompromised` runs once if the heartbeat later finds the directory gone, modified by
 * someone else, or could not refresh it within the lease (the lease has then already ended).
 */
export async function tryLockDir(path: string, timing: LockDirTiming, onCompromised: (error: Error) => void): Promise<LockDirAttempt> {
  // The lease runs to one heartbeat short of the stale time, counted from when the refresh was
  // *issued*: whoever judges staleness sees an mtime at least that recent, so the owner stops
  // writing before anyone can take the lock over (clock skew under one heartbeat aside).
  // With fewer heartbeats per stale time the lease (one heartbeat short of it) would lapse
  // before the next heartbeat could renew it; the configuration refuses such timing too.
  if (timing.updateMs * MIN_HEARTBEATS_PER_STALE > timing.staleMs) throw new RangeError(`lock heartbeat every ${timing.updateMs} ms is more than a third of the stale time (${timing.staleMs} ms)`);
  const leaseFor = (issuedAtMs: number) => issuedAtMs + timing.staleMs - timing.updateMs;
  const lease = createLease(leaseFor(Date.now()));
  const fs = leaseGuardedFs((timing.fs ?? nodeFs) as typeof nodeFs, lease, leaseFor);
  try {
    const release = await lockfile.lock(path, {
      // The directory *is* the lock; the "file" it guards is never created, so no realpath.
      lockfilePath: path,
      realpath: false,
      retries: 0,
      stale: timing.staleMs,
      update: timing.updateMs,
      onCompromised,
      fs,
    });
    return { kind: 'held', dir: { path, lease, release } };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') return { kind: 'contended' };
    if (CONTENTION_CODES.has(code)) return { kind: 'contended', transient: error as NodeJS.ErrnoException };
    throw error;
  }
}
