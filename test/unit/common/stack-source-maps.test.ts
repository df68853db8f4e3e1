// Stack traces of built code name the TypeScript sources. Each case runs in a child Node
// (vitest rewrites stacks itself) on a fixture that esbuild bundles exactly as the start
// bundle is built (linked map, no sources content), with the compiled module under test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, test } from 'vitest';

// `npm test` builds first; the child loads tsc's output of the module.
const MODULE = new URL('../../../dist/src/common/stack-source-maps.js', import.meta.url).href;

const FIXTURE = [
  '// padding, so generated and original lines differ',
  'export class Thrower {',
  '  fail(text: string): never {',
  '    throw new TypeError(`bad ${text}`);',
  '  }',
  '}',
  '',
].join('\n');

let dir = '';
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stack-maps-'));
  writeFileSync(join(dir, 'thrower.ts'), FIXTURE);
  await build({
    entryPoints: [join(dir, 'thrower.ts')],
    outdir: join(dir, 'dist'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first `lines` lines of the stack the fixture throws, mapped under `root`. */
function stackOf(root: string, nodeArgs: string[] = [], lines = 2): string[] {
  const script = [
    `import { mapStackTraces } from ${JSON.stringify(MODULE)};`,
    `mapStackTraces(new URL(${JSON.stringify(root)}));`,
    `const { Thrower } = await import(${JSON.stringify(pathToFileURL(join(dir, 'dist', 'thrower.js')).href)});`,
    `try { new Thrower().fail('input'); } catch (error) { console.log(error.stack); }`,
  ].join('\n');
  const out = execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { encoding: 'utf8' });
  return out.split('\n').slice(0, lines);
}

test('a frame in a built file names its .ts source, line and column, as Node would', () => {
  expect(stackOf(pathToFileURL(dir).href + '/')).toEqual([
    'TypeError: bad input',
    `    at Thrower.fail (${join(dir, 'thrower.ts')}:4:11)`,
  ]);
});

test('frames outside the root keep the text V8 gives them', () => {
  const [header, frame] = stackOf(pathToFileURL(join(dir, 'elsewhere')).href + '/');
  expect(header).toBe('TypeError: bad input');
  expect(frame).toMatch(/^ {4}at Thrower\.fail \(file:\/\/.*\/dist\/thrower\.js:\d+:\d+\)$/);
});

test("with Node's own source maps on, Node maps the frame and the module stays out of its way", () => {
  expect(stackOf(pathToFileURL(dir).href + '/', ['--enable-source-maps'])).toEqual([
    'TypeError: bad input',
    `    at Thrower.fail (${join(dir, 'thrower.ts')}:4:11)`,
  ]);
});
