// The build's code caches are of use only if a later start accepts them. V8 stamps a cache with
// the flags in force when it was made and rejects it under others, and the build compiles
// eagerly (--no-lazy) before it sets the flag back and makes them (scripts/write-code-cache.mjs).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const distFile = (path: string): string => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));

test.each(['bundle/thread-host.cjs', 'bundle/piscina/index.js'])('a fresh Node process accepts the code cache of %s', (bundle) => {
  // A process of its own: its flags are a plain start's, not the test runner's.
  const script = `import(${JSON.stringify(distFile('src/main/code-cache.js'))}).then(({ compileBundle }) => process.stdout.write(compileBundle(${JSON.stringify(distFile(bundle))}).cache))`;
  expect(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })).toBe('accepted');
});
