// `<home>/thread-writer-locks/.coordination.lock` is a cross-process reader/writer lock
// (spec §1.2, §1.5). flock belongs to an inode, not a name, so deleting a thread lock file
// while someone is between open() and flock() would let two processes lock *different* inodes
// for the same thread. Hence:
//   - SHARED coordination is held across open+flock of a thread file (any number of openers);
//   - EXCLUSIVE coordination is held across every unlink of a thread file (no opener in flight).
// The file itself is never deleted by anyone.
import { closeSync, constants, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { type FlockMode, tryFlock } from './flock.js';

/** Directory under the home that holds every writer lock (Codex `WRITER_LOCK_DIR`). */
export const WRITER_LOCK_DIR = 'thread-writer-locks';
/** The coordination file's name; the leading dot keeps it out of the stale sweep. */
export const COORDINATION_FILE = '.coordination.lock';

/** O_RDWR|O_CREAT without O_TRUNC, as Codex opens both kinds of lock file. Node adds O_CLOEXEC. */
export const LOCK_FILE_FLAGS = constants.O_RDWR | constants.O_CREAT;
/** 0666 minus umask, as Codex creates them, so other users' servers sharing a home can lock too. */
export const LOCK_FILE_MODE = 0o666;

/** Coordination held by this process through its own fd; `exit()` closes the fd, dropping the flock. */
export interface CoordinationHold {
  exit(): void;
}

/** Where a home's writer locks live. */
export interface WriterLockPaths {
  readonly dir: string;
  readonly coordination: string;
}

export function writerLockPaths(home: string): WriterLockPaths {
  const dir = join(home, WRITER_LOCK_DIR);
  return { dir, coordination: join(dir, COORDINATION_FILE) };
}

/**
 * One non-blocking attempt at the coordination lock through a fresh fd, creating the file on
 * demand and the directory only when it is missing (every unload and every lock poll comes
 * here, and the directory almost always exists: mkdir first would be a wasted syscall on
 * each). Returns undefined when contended.
 *
 * A fresh open file description each time matters even inside one process: flock conflicts
 * between two descriptions of the same file, so our own releaser and our own poller exclude
 * each other exactly as two processes would.
 */
export function tryEnterCoordination(paths: WriterLockPaths, mode: FlockMode): CoordinationHold | undefined {
  const fd = openCoordination(paths);
  let attempt;
  try {
    attempt = tryFlock(fd, mode);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (attempt === 'contended') {
    closeSync(fd);
    return undefined;
  }
  let open = true;
  return {
    exit() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

function openCoordination(paths: WriterLockPaths): number {
  try {
    return openSync(paths.coordination, LOCK_FILE_FLAGS, LOCK_FILE_MODE);
  } catch (error) {
    // Missing, or a file where the directory should be: mkdir -p then creates it or says why
    // it cannot (EEXIST for that file), the reason a refused thread/start reports.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    mkdirSync(paths.dir, { recursive: true });
    return openSync(paths.coordination, LOCK_FILE_FLAGS, LOCK_FILE_MODE);
  }
}
