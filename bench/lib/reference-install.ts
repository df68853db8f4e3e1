// The reference implementation, `codex app-server` 0.171.0, installed on demand from the npm
// registry into a cache folder outside the source tree (never a dependency of this package,
// of `npm test` or of CI): $THREAD_HOST_REFERENCE_DIR, else ~/.cache/thread-host/codex-0.171.0.
// Used by `npm run bench:reference` and the opt-in `npm run test:interop`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const REFERENCE_VERSION = '0.171.0';

function cacheDir(): string {
  return process.env.THREAD_HOST_REFERENCE_DIR ?? join(homedir(), '.cache', 'thread-host', `codex-${REFERENCE_VERSION}`);
}

/**
 * The native binary in an install: @openai/codex-<platform>-<arch>/vendor/<triple>/bin/codex.
 * It is spawned directly, not through the package's Node wrapper (bin/codex.js), whose own
 * start-up would be charged to the reference.
 */
function findBinary(dir: string): string | null {
  const scope = join(dir, 'node_modules', '@openai');
  if (!existsSync(scope)) return null;
  for (const pkg of readdirSync(scope).filter((name) => name.startsWith('codex-'))) {
    const vendor = join(scope, pkg, 'vendor');
    if (!existsSync(vendor)) continue;
    for (const triple of readdirSync(vendor)) {
      const binary = join(vendor, triple, 'bin', 'codex');
      if (existsSync(binary)) return binary;
    }
  }
  return null;
}

/** The reference binary, installed first if needed (its progress goes to stderr). */
export function ensureReference(): string {
  const dir = cacheDir();
  const found = findBinary(dir);
  if (found !== null) return found;
  process.stderr.write(`installing @openai/codex@${REFERENCE_VERSION} into ${dir}\n`);
  mkdirSync(dir, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(npm, ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel=error', `@openai/codex@${REFERENCE_VERSION}`], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (install.status !== 0) throw new Error(`npm install @openai/codex@${REFERENCE_VERSION} failed (exit ${install.status ?? install.signal})`);
  const binary = findBinary(dir);
  if (binary === null) throw new Error(`no native codex binary for ${process.platform}-${process.arch} under ${dir}`);
  return binary;
}
