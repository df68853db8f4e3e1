// A real flock(2) held by a separate real process (bench/hold-flock.ts), standing in
// for a second server on the same home. Spawned, not imported: bench code never imports tests.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { trackChild } from './children.js';
import { HOLD_FLOCK_SCRIPT } from './repo-paths.js';

/** Node start-up plus an uncontended flock is well under a second; this only bounds a hang. */
const LOCKED_DEADLINE_MS = 10_000;
const RELEASE_DEADLINE_MS = 5_000;

/** A held lock. `release()` resolves once the holder exited, i.e. the kernel dropped the lock. */
export interface FlockHolder {
  /** `performance.now()` when the holder reported `locked`. */
  lockedAt: number;
  release(): Promise<void>;
}

export function holdFlock(path: string, mode: 'shared' | 'exclusive'): Promise<FlockHolder> {
  // The holder is compiled with the bench; a missing file means the build did not run.
  if (!existsSync(HOLD_FLOCK_SCRIPT)) return Promise.reject(new Error(`${HOLD_FLOCK_SCRIPT} is missing: run \`npm run build\` first`));
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
      reject(new Error(`hold-flock ${mode} ${path}: not locked within ${LOCKED_DEADLINE_MS} ms`));
    }, LOCKED_DEADLINE_MS);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.split('\n').includes('locked')) {
        clearTimeout(timer);
        resolve({ lockedAt: performance.now(), release });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`hold-flock exited (${code ?? signal}) before locking: ${stderr}`));
    });
  });
}
