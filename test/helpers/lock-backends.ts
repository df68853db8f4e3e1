// The two writer-lock backends, as e2e suites run them side by side: the config.toml lines
// that select each one, and where each keeps its lock for a thread.
import { join } from 'node:path';
import type { WriterLockBackendKind } from '../../src/main/config/lock-backend-config.js';

/** Both backends, for `describe.each`. */
export const LOCK_BACKENDS: readonly WriterLockBackendKind[] = ['flock', 'lockfile'];

// The shortest timing proper-lockfile accepts, plus room: tests that wait for a takeover
// wait about three seconds, not thirty.
export const TEST_LOCKFILE_STALE_MS = 3_000;
export const TEST_LOCKFILE_UPDATE_MS = 1_000;

/** config.toml lines selecting `backend` (none for flock, the default). */
export function backendConfig(backend: WriterLockBackendKind): string {
  if (backend === 'flock') return '';
  return `writer_lock_backend = "lockfile"\nlockfile_stale_ms = ${TEST_LOCKFILE_STALE_MS}\nlockfile_update_ms = ${TEST_LOCKFILE_UPDATE_MS}`;
}

/** `rootConfig` joined with the backend's lines. */
export function withBackend(backend: WriterLockBackendKind, rootConfig = ''): string {
  return [rootConfig, backendConfig(backend)].filter((part) => part !== '').join('\n');
}

/** The directory holding `backend`'s locks in `home`. */
export function lockDir(home: string, backend: WriterLockBackendKind): string {
  return join(home, backend === 'flock' ? 'thread-writer-locks' : 'thread-writer-lockdirs');
}

/** A thread's lock (a file for flock, a directory for lockfile). */
export function threadLockPath(home: string, backend: WriterLockBackendKind, threadId: string): string {
  return join(lockDir(home, backend), `${threadId}.lock`);
}
