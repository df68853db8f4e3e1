// Where the compiled host and the flock fixture live, found from this file so the bench runs
// from any cwd. Compiled, this file sits in dist/bench/lib/; the package root is the nearest
// ancestor whose package.json is thread-host's.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'thread-host') {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('bench: cannot find the thread-host package root');
    dir = parent;
  }
}

export const REPO_ROOT = findRepoRoot();
/** The host's CLI as users run it: the start bundle (`npm run build` first). */
export const HOST_CLI = join(REPO_ROOT, 'dist', 'bundle', 'cli.js');
/** A real separate process holding a real flock (`node dist/bench/hold-flock.js <path> exclusive`). */
export const HOLD_FLOCK_SCRIPT = join(REPO_ROOT, 'dist', 'bench', 'hold-flock.js');
