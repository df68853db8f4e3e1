// The build's code caches are of use only if a later start accepts them. V8 stamps a cache with
// the flags of the process that made it, and the pool's start sets one on the main thread, so
// a cache made after it would be rejected by every start (scripts/warm-code-cache.mjs).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const distFile = (path: string): string => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));

test.each(['bundle/thread-host.cjs', 'bundle/piscina/index.js'])('a fresh Node process accepts the code cache of %s', (bundle) => {
  // A process of its own: its flags are a plain start's, not the test runner's.
  const script = `import(${JSON.stringify(distFile('src/main/code-cache.js'))}).then(({ compileBundle }) => process.stdout.write(compileBundle(${JSON.stringify(distFile(bundle))}).cache))`;
  expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })).toBe('accepted');
});
