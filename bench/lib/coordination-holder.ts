// Holds a home's writer coordination lock from outside a host, on either backend, standing in
// for another host mid-operation. flock: a separate process holds `.coordination.lock`
// (flock-holder.ts). lockfile: this process holds `.coordination.lock/` as a proper-lockfile
// mkdir lock with a live heartbeat, exactly as another host's backend would.
import { mkdir } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { WRITER_LOCK_DIR } from '../../src/main/store/files/locks/flock/coordination-lock.js';
import { lockDirPaths, tryLockDir } from '../../src/main/store/files/locks/lockfile/lock-dir.js';
import { holdFlock } from './flock-holder.js';

/** The configuration's floors: the held directory is refreshed every second, its lease lasts two. */
const HOLDER_TIMING = { staleMs: 3_000, updateMs: 1_000 };

/** A held coordination lock; `release()` is idempotent. */
export interface CoordinationHolder {
  /** `performance.now()` once the lock was held. */
  readonly lockedAt: number;
  release(): Promise<void>;
}

/** A host holds coordination for milliseconds; this only bounds a hang. */
const HOLD_DEADLINE_MS = 10_000;
const RETRY_MS = 10;

/**
 * Takes `home`'s coordination lock for `backend`, waiting while a host holds it (as the flock
 * holder's blocking flock does); rejects after the deadline.
 */
export async function holdCoordination(home: string, backend: WriterLockBackendKind): Promise<CoordinationHolder> {
  if (backend === 'flock') {
    await mkdir(join(home, WRITER_LOCK_DIR), { recursive: true });
    return holdFlock(join(home, WRITER_LOCK_DIR, '.coordination.lock'), 'exclusive');
  }
  const paths = lockDirPaths(home);
  await mkdir(paths.dir, { recursive: true });
  const deadline = Date.now() + HOLD_DEADLINE_MS;
  for (;;) {
    const attempt = await tryLockDir(paths.coordination, HOLDER_TIMING, (error) => {
      throw new Error(`coordination holder lost ${paths.coordination}: ${error.message}`);
    });
    if (attempt.kind === 'held') {
      let released: Promise<void> | null = null;
      return { lockedAt: performance.now(), release: () => (released ??= attempt.dir.release()) };
    }
    if (Date.now() > deadline) throw new Error(`${paths.coordination}: not held within ${HOLD_DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
