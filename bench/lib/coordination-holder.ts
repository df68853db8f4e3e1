// Holds a home's writer coordination lock from outside a host, on either backend, standing in
// for another host mid-operation. flock: a separate process holds `.coordination.lock`
// (flock-holder.ts). lockfile: this process holds `.coordination.lock/` as a proper-lockfile
// mkdir lock with a live heartbeat, exactly as another host's backend would.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';
import { WRITER_LOCK_DIR } from '../../src/main/locks/flock/coordination-lock.js';
import { lockDirPaths, tryLockDir } from '../../src/main/locks/lockfile/lock-dir.js';
import { holdFlock } from './flock-holder.js';

/** proper-lockfile's floors: the held directory is refreshed every second, judged stale after two. */
const HOLDER_TIMING = { staleMs: 2_000, updateMs: 1_000 };

/** A held coordination lock; `release()` is idempotent. */
export interface CoordinationHolder {
  release(): Promise<void>;
}

/** Takes `home`'s coordination lock for `backend`; rejects if another owner holds it. */
export async function holdCoordination(home: string, backend: WriterLockBackendKind): Promise<CoordinationHolder> {
  if (backend === 'flock') return holdFlock(join(home, WRITER_LOCK_DIR, '.coordination.lock'), 'exclusive');
  const paths = lockDirPaths(home);
  await mkdir(paths.dir, { recursive: true });
  const attempt = await tryLockDir(paths.coordination, HOLDER_TIMING, (error) => {
    throw new Error(`coordination holder lost ${paths.coordination}: ${error.message}`);
  });
  if (attempt.kind === 'contended') throw new Error(`${paths.coordination} is held by someone else`);
  let released: Promise<void> | null = null;
  return { release: () => (released ??= attempt.dir.release()) };
}
