// The CLI bundle runs from V8's code cache (src/main/code-cache.ts). Each case runs in a child
// Node, on a CommonJS fixture that esbuild bundles as the CLI bundle is built, with the
// compiled module under test (`npm test` builds first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';

const CODE_CACHE = new URL('../../../dist/src/main/code-cache.js', import.meta.url).href;
const STACK_MAPS = new URL('../../../dist/src/common/stack-source-maps.js', import.meta.url).href;

const FIXTURE = ['export function twice(n: number): number {', '  return n * 2;', '}', 'export function fail(): never {', "  throw new RangeError('out');", '}', ''].join('\n');

let dir = '';
let bundle = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'code-cache-'));
  writeFileSync(join(dir, 'fixture.ts'), FIXTURE);
  bundle = join(dir, 'dist', 'fixture.cjs');
  await build({ entryPoints: [join(dir, 'fixture.ts')], outfile: bundle, bundle: true, format: 'cjs', platform: 'node', sourcemap: 'linked', sourcesContent: false, logLevel: 'silent' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `body` in a child Node with `compileBundle`, `runBundle`, `writeCodeCache` and `mapStackTraces` in scope; returns its stdout lines. */
function child(body: string): string[] {
  const script = [
    `import { compileBundle, runBundle, writeCodeCache } from ${JSON.stringify(CODE_CACHE)};`,
    `import { mapStackTraces } from ${JSON.stringify(STACK_MAPS)};`,
    `const bundle = ${JSON.stringify(bundle)};`,
    body,
  ].join('\n');
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n');
}

test('without a cache the bundle compiles and runs; with the one written after a run, V8 accepts it; a corrupt one is rejected and the bundle still runs', () => {
  rmSync(`${bundle}.cache`, { force: true });
  expect(child('const { script, cache } = compileBundle(bundle); console.log(cache, runBundle(bundle, script).twice(21)); writeCodeCache(bundle, script);')).toEqual(['absent 42']);
  expect(child('const { script, cache } = compileBundle(bundle); console.log(cache, runBundle(bundle, script).twice(4));')).toEqual(['accepted 8']);
  writeFileSync(`${bundle}.cache`, Buffer.from('not a code cache'));
  expect(child('const { script, cache } = compileBundle(bundle); console.log(cache, runBundle(bundle, script).twice(5));')).toEqual(['rejected 10']);
});

test('a stack thrown in the bundle names the .ts source, line and column', () => {
  const lines = child(
    `mapStackTraces(new URL(${JSON.stringify(pathToFileURL(dir).href + '/')}));` +
      'try { runBundle(bundle, compileBundle(bundle).script).fail(); } catch (error) { console.log(error.stack.split("\\n").slice(0, 2).join("\\n")); }',
  );
  expect(lines).toEqual(['RangeError: out', `    at Object.fail (${join(dir, 'fixture.ts')}:5:9)`]);
});
