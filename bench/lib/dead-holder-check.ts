// After a kill: are the writer locks the dead process held free at once? The bench waits for
// the process to be gone (a SIGKILLed process drops its flocks once its last thread has
// exited, before it is even reaped), then tries each lock file it held with a non-blocking exclusive flock of its own and
// lets go at once. Taken means free. Refused means somebody holds it: that must be another
// racing server that already moved in, never the dead one nor a child that inherited its fd
// (a flock belongs to the open file, so a surviving child would keep the dead server's lock).
import { closeSync, constants, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import type fsExtModule from 'fs-ext';
import { readProcLocks } from './proc-locks.js';

const fsExt = createRequire(import.meta.url)('fs-ext') as typeof fsExtModule;

/** SIGKILL takes effect within milliseconds; past this the process is stuck (uninterruptible I/O). */
export const EXIT_DEADLINE_MS = 5_000;
const EXIT_POLL_MS = 1;

/** What the check found for one kill. */
export interface DeadHolderCheck {
  /** Kill → the process gone (reaped, or a zombie with no thread left: either way its files are closed). */
  goneAfterMs: number | null;
  /** Held threads whose lock was still held by pids that are not live racing servers (must be none). */
  stillHeld: Array<{ threadId: string; pids: number[] }>;
}

/** Waits for `pid` to be gone, then checks the lock files of `threadIds` (in `lockDir`). */
export async function checkDeadHolder(pid: number, killedAt: number, lockDir: string, threadIds: readonly string[], isRacer: (pid: number) => boolean): Promise<DeadHolderCheck> {
  while (!gone(pid)) {
    if (performance.now() - killedAt > EXIT_DEADLINE_MS) return { goneAfterMs: null, stillHeld: threadIds.map((threadId) => ({ threadId, pids: [pid] })) };
    await delay(EXIT_POLL_MS);
  }
  const goneAfterMs = performance.now() - killedAt;
  const refused = threadIds.filter((threadId) => !tryLock(join(lockDir, `${threadId}.lock`)));
  // The table is read after the tries, so a holder seen here held it at the try or later.
  const locks = refused.length === 0 ? [] : readProcLocks();
  const stillHeld = refused.flatMap((threadId) => {
    let inode: number;
    try {
      inode = statSync(join(lockDir, `${threadId}.lock`)).ino;
    } catch {
      return []; // removed since the try: free
    }
    const foreign = locks.filter((l) => l.kind === 'FLOCK' && !l.blocked && l.inode === inode && !isRacer(l.pid)).map((l) => l.pid);
    return foreign.length === 0 ? [] : [{ threadId, pids: foreign }];
  });
  return { goneAfterMs, stillHeld };
}

/** True when the exclusive flock could be taken (and it is released at once); a missing file is free. */
function tryLock(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR);
  } catch {
    return true; // removed: nobody can hold a lock on it under this name
  }
  try {
    fsExt.flockSync(fd, 'exnb');
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd); // closing drops the bench's lock, if it took one
  }
}

/**
 * Gone (reaped), or a zombie whose every thread has exited. A zombie thread-group leader alone
 * is not enough: its other threads (a host's pool workers, a runtime's) may still be exiting,
 * and the open files, flocks with them, are closed only when the last thread is done.
 */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' && readdirSync(`/proc/${pid}/task`).length === 1;
  } catch {
    return true;
  }
}
