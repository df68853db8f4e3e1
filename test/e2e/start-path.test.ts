// The start path users run is the esbuild bundle (dist/bundle/, scripts/bundle.mjs): every
// file of it maps back to the sources, V8 accepts the code cache the build wrote, and a stdio
// start answers initialize before loading the npm packages and built-ins it only needs later
// (each costs the cold start; crypto alone is ~20 internal modules).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { mockModelConfig } from '../../src/main/commands/mock-model/mock-config.js';
import { CLI } from '../helpers/server-process.js';

const CODE_CACHE = new URL('../../dist/src/main/code-cache.js', import.meta.url).href;
const PRELOAD = fileURLToPath(new URL('../fixtures/start-path/builtins-at-first-reply.mjs', import.meta.url));
const BUNDLE_DIR = dirname(CLI);
const INITIALIZE = `${JSON.stringify({ id: 1, method: 'initialize', params: { clientInfo: { name: 'start-path', version: '1' } } })}\n`;

// Loaded by the first thread/start, a socket listener, stats or the pool, never before the first reply.
const LATER_BUILTINS = ['crypto', 'worker_threads', 'child_process', 'perf_hooks', 'http', 'readline', 'v8', 'fs/promises'];

/** The public built-ins and the npm packages loaded when a stdio start in `home` wrote its first line. */
function loadedAtFirstReply(home: string): { builtins: string[]; packages: string[] } {
  const child = spawnSync(process.execPath, ['--import', PRELOAD, CLI, 'app-server'], {
    input: INITIALIZE,
    env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(child.status).toBe(0);
  expect(JSON.parse(child.stdout.split('\n')[0]!)).toMatchObject({ id: 1, result: { codexHome: home } });
  const report = child.stderr.split('\n').find((line) => line.startsWith('{"builtins"'));
  return JSON.parse(report!) as { builtins: string[]; packages: string[] };
}

test('every file of the bundle, the workers\' entries, piscina and node-pg-migrate included, has a source map naming the .ts sources (and the inlined package files)', () => {
  const files = readdirSync(BUNDLE_DIR, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js') || name.endsWith('.cjs'));
  expect(files.sort()).toEqual([
    'cli.js',
    'node-pg-migrate/index.cjs',
    'piscina/index.js',
    'piscina/worker.js',
    'thread-host.cjs',
    'workers/codex-state.cjs',
    'workers/line-parser.cjs',
    'workers/stored-history.cjs',
    'workers/thread-host.cjs',
  ]);
  expect(JSON.parse(readFileSync(join(BUNDLE_DIR, 'thread-host.cjs.map'), 'utf8')).sources).toContain('../../src/main/cli.ts');
  expect(JSON.parse(readFileSync(join(BUNDLE_DIR, 'workers/thread-host.cjs.map'), 'utf8')).sources).toContain('../../../workers/thread-host.ts');
  expect(JSON.parse(readFileSync(join(BUNDLE_DIR, 'workers/stored-history.cjs.map'), 'utf8')).sources).toContain('../../../src/stored-reads/head-reads.ts');
  expect(JSON.parse(readFileSync(join(BUNDLE_DIR, 'workers/codex-state.cjs.map'), 'utf8')).sources).toContain('../../../src/codex-state/codex-state-writer.ts');
  for (const file of files) {
    const map = JSON.parse(readFileSync(join(BUNDLE_DIR, `${file}.map`), 'utf8')) as { sources: string[] };
    const sources = map.sources.map((source) => resolve(dirname(join(BUNDLE_DIR, file)), source));
    const inlinedPackage = (source: string) => source.includes('/node_modules/');
    expect(sources.filter((source) => !existsSync(source) || !(source.endsWith('.ts') || inlinedPackage(source)))).toEqual([]);
  }
});

test('the command is CommonJS, and the bundles run from a code cache are ASCII, as code-cache.ts reads them (latin1)', () => {
  // Node reaches an ES module entry later than a CommonJS one; the folder's package.json decides.
  expect(JSON.parse(readFileSync(join(BUNDLE_DIR, 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  const nonAscii = (file: string) => [...readFileSync(join(BUNDLE_DIR, file))].filter((byte) => byte > 0x7f).length;
  expect(['thread-host.cjs', 'piscina/index.js'].map(nonAscii)).toEqual([0, 0]);
});

test('V8 accepts the code caches the build wrote for the bundle and for piscina\'s', () => {
  const bundles = [join(BUNDLE_DIR, 'thread-host.cjs'), join(BUNDLE_DIR, 'piscina/index.js')];
  const script = `import { compileBundle } from ${JSON.stringify(CODE_CACHE)}; for (const file of ${JSON.stringify(bundles)}) console.log(compileBundle(file).cache);`;
  // A plain `node`, as users run the command: V8 rejects a cache made under other flags.
  expect(spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).stdout).toBe('accepted\naccepted\n');
});

test('a stdio start answers initialize before loading any npm package, crypto, workers, child processes or perf_hooks, in a fresh home and a reused one', () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-start-'));
  try {
    writeFileSync(join(home, 'config.toml'), mockModelConfig('http://127.0.0.1:9/v1'));
    for (const start of ['fresh', 'reused']) {
      const { builtins, packages } = loadedAtFirstReply(home);
      // fs and os are needed before the first reply: their presence shows the list is real.
      expect({ start, needed: ['fs', 'os'].filter((name) => builtins.includes(name)), later: LATER_BUILTINS.filter((name) => builtins.includes(name)), packages }).toEqual({
        start,
        needed: ['fs', 'os'],
        later: [],
        packages: [],
      });
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('the main bundle loads piscina from its own bundle folder (src/main/pool/bundled-piscina.ts), whose worker bootstrap runs a task', () => {
  const bundle = readFileSync(join(BUNDLE_DIR, 'thread-host.cjs'), 'utf8');
  expect([bundle.includes('distPath("bundle/piscina/index.js")'), bundle.includes('require("piscina")')]).toEqual([true, false]);
  // CommonJS in a repository whose package.json says ES modules: the folder says otherwise.
  expect(JSON.parse(readFileSync(join(BUNDLE_DIR, 'piscina/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  const dir = mkdtempSync(join(tmpdir(), 'thread-host-piscina-'));
  try {
    const task = join(dir, 'double.cjs');
    writeFileSync(task, 'module.exports = (n) => n * 2;\n');
    const script = `const { Piscina } = require(${JSON.stringify(join(BUNDLE_DIR, 'piscina/index.js'))});
const pool = new Piscina({ filename: ${JSON.stringify(task)}, minThreads: 1, maxThreads: 1 });
pool.run(21).then((n) => pool.destroy().then(() => console.log(n)));`;
    expect(spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 })).toMatchObject({ status: 0, stdout: '42\n', stderr: '' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
