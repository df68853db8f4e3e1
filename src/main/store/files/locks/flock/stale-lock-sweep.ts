// First-use stale sweep (spec §1.3 step 3, §3.2): a killed owner leaves `<uuid>.lock` on disk
// with no flock on it. The caller must hold EXCLUSIVE coordination, so no process is between
// open() and flock() on any thread file while we decide and unlink.
import { closeSync, constants, openSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tryFlock } from './flock.js';

/**
 * Names the sweep may touch: `<uuid>.lock` only. Codex skips names that do not parse as a
 * ThreadId; we accept only the hyphenated form thread ids are written in, so `not-a-uuid.lock`,
 * `other.txt` and `.coordination.lock` are never candidates.
 */
const THREAD_LOCK_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.lock$/i;

/** What one sweep did, by file name. */
export interface SweepReport {
  /** Unowned thread lock files that were unlinked. */
  readonly removed: string[];
  /** Thread lock files some live open file description holds; left alone. */
  readonly owned: string[];
}

/** True for file names the stale sweep and janitor may delete once proven unowned. */
export function isThreadLockName(name: string): boolean {
  return THREAD_LOCK_NAME.test(name);
}

/** Outcome of trying to delete one thread lock file under exclusive coordination. */
export type UnlinkUnownedResult = 'removed' | 'owned' | 'gone';

/**
 * Deletes `path` if and only if an EX|NB flock on it succeeds. Caller holds EXCLUSIVE
 * coordination. Opens without O_CREAT so a file that is already gone stays gone.
 */
export function unlinkIfUnowned(path: string): UnlinkUnownedResult {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  let attempt;
  try {
    attempt = tryFlock(fd, 'exclusive');
  } finally {
    // Close BEFORE unlink: the flock we just proved we could take dies with this fd, and
    // exclusive coordination guarantees nobody can open+lock the file in between. (Codex does
    // the same "so cleanup works on Windows too", where open files cannot be deleted.)
    closeSync(fd);
  }
  if (attempt === 'contended') return 'owned';
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  return 'removed';
}

/** Removes every unowned `<uuid>.lock` in `dir`. Synchronous and run once per manager, like Codex. */
export function sweepStaleThreadLocks(dir: string): SweepReport {
  const report: SweepReport = { removed: [], owned: [] };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || !isThreadLockName(entry.name)) continue;
    const outcome = unlinkIfUnowned(join(dir, entry.name));
    if (outcome === 'removed') report.removed.push(entry.name);
    else if (outcome === 'owned') report.owned.push(entry.name);
  }
  return report;
}
