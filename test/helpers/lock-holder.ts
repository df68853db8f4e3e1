// Spawns dist/bench/hold-flock.js: a REAL separate process holding a REAL flock, so tests
// see exactly what they would see with a second Codex app-server on the same home.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The holder is compiled with the bench (npm test builds first), so an installed package has it too.
const FIXTURE = fileURLToPath(new URL('../../dist/bench/hold-flock.js', import.meta.url));
/** Node start-up plus an uncontended flock is well under a second; this only bounds a hang. */
const LOCKED_DEADLINE_MS = 5_000;

/** A flock held by another process. `release()` resolves once that process has exited (lock dropped). Idempotent. */
export interface FlockHolder {
  readonly pid: number;
  release(): Promise<void>;
}

/**
 * Hold a flock on `path` (created if missing) from a separate process. Resolves once the child
 * printed `locked`; rejects (and kills the child) if it exits first or misses the deadline,
 * e.g. because the lock is held elsewhere and the child's blocking flock never returns.
 */
export function holdFlock(
  path: string,
  mode: 'shared' | 'exclusive',
  deadlineMs: number = LOCKED_DEADLINE_MS,
): Promise<FlockHolder> {
  const child = spawn(process.execPath, [FIXTURE, path, mode], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));

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
        resolve({ pid: child.pid ?? -1, release: () => releaseChild(child, exited) });
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

function releaseChild(child: ChildProcessWithoutNullStreams, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.stdin.writable) {
    child.stdin.end('release\n');
  }
  return exited;
}
