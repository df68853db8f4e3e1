// The floor a cold start is measured against: this Node, spawned the same way as a server,
// printing one line and exiting (`node -e`), timed from spawn to its first stdout byte.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { trackChild } from './children.js';

const DEADLINE_MS = 10_000;

/** Spawn → first line of a bare `node -e` that prints one line, in ms. */
export function bareNodeStartMs(cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("{}\\n")'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    trackChild(child);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bare node printed nothing within ${DEADLINE_MS} ms`));
    }, DEADLINE_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout.once('data', () => {
      clearTimeout(timer);
      resolve(performance.now() - startedAt);
    });
  });
}
