// A real flock(2) held by a separate real process (bench/hold-flock.ts), standing in for a
// second server on the same home. The bench and the tests both use it; the holder is compiled
// with the bench, so `npm run build` (which `npm test` runs first) provides it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { trackChild } from './children.js';
import { HOLD_FLOCK_SCRIPT } from './repo-paths.js';

/** Node start-up plus an uncontended flock is well under a second; this only bounds a hang. */
const LOCKED_DEADLINE_MS = 10_000;
const RELEASE_DEADLINE_MS = 5_000;

/** A held lock. `release()` resolves once the holder exited, i.e. the kernel dropped the lock. Idempotent. */
export interface FlockHolder {
  readonly pid: number;
  /** `performance.now()` when the holder reported `locked`. */
  readonly lockedAt: number;
  release(): Promise<void>;
}

/**
 * Holds a flock on `path` (created if missing) from a separate process. Resolves once the child
 * printed `locked`; rejects (and kills the child) if it exits first or misses the deadline,
 * e.g. because the lock is held elsewhere and the child's blocking flock never returns.
 */
export function holdFlock(path: string, mode: 'shared' | 'exclusive', deadlineMs: number = LOCKED_DEADLINE_MS): Promise<FlockHolder> {
  if (!existsSync(HOLD_FLOCK_SCRIPT)) return Promise.reject(new Error(`${HOLD_FLOCK_SCRIPT} is missing: run \`npm run build\` first`));
  // Its own process group, so the bench's cleanup can kill it (and only it) on any exit path.
  const child = spawn(process.execPath, [HOLD_FLOCK_SCRIPT, path, mode], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  trackChild(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const release = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.stdin.writable) child.stdin.end('release\n');
    const timer = setTimeout(() => child.kill('SIGKILL'), RELEASE_DEADLINE_MS);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<FlockHolder>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hold-flock ${mode} ${path}: not locked within ${deadlineMs} ms`));
    }, deadlineMs);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.split('\n').includes('locked')) {
        clearTimeout(timer);
        resolve({ pid: child.pid ?? -1, lockedAt: performance.now(), release });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`hold-flock ${mode} ${path} exited (${code ?? signal}) before locking: ${stderr}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
