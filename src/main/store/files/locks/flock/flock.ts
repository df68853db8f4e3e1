// The one place that touches the native flock binding. BSD flock(2), never fcntl: Codex uses
// flock, and on Linux fcntl record locks do not conflict with flock locks at all (spec §1.2).
import { createRequire } from 'node:module';
import type fsExtModule from 'fs-ext';

// Loaded at the first lock or the host's warm-up (host/warm-up.ts), not at process start:
// loading the native addon is a noticeable part of a cold start (bench case `cold-start`), and
// a server that only answers `initialize` never needs it.
let fsExt: typeof fsExtModule | null = null;
const loadFsExt = (): typeof fsExtModule => (fsExt ??= createRequire(import.meta.url)('fs-ext') as typeof fsExtModule);

/** Loads the native binding now, so that the first lock does not load it on a request's path. */
export function prepareFlock(): void {
  loadFsExt();
}

/** Which flock to take. */
export type FlockMode = 'shared' | 'exclusive';
/** Outcome of one non-blocking flock attempt. */
export type FlockAttempt = 'locked' | 'contended';

/**
 * One LOCK_NB attempt on `fd`. Returns 'contended' when another open file description holds a
 * conflicting lock (in this or any other process); throws every other error (EBADF, ENOLCK, …).
 * There is deliberately no unlock: locks are dropped by closing the fd, as Codex does.
 */
export function tryFlock(fd: number, mode: FlockMode): FlockAttempt {
  try {
    loadFsExt().flockSync(fd, mode === 'shared' ? 'shnb' : 'exnb');
    return 'locked';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return 'contended';
    throw error;
  }
}
