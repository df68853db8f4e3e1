// Bundles the CLI after `tsc` has built dist/, into dist/bundle/:
//
//   cli.js             the installed command (CommonJS, as package.json here says): compiles
//                      thread-host.cjs with its code cache
//   thread-host.cjs    src/main/cli.ts and everything it imports, one CommonJS file
//   thread-host.cjs.cache   V8's code cache of it, written here with this Node
//   workers/*.cjs      the pool worker's, the line parser's, the stored history's and the
//                      codex-state mirror's entries
//   piscina/           piscina's main side and its worker bootstrap, one file each
//   migrations/        the PostgreSQL store's schema migrations (SQL), read at run time
//   node-pg-migrate/   node-pg-migrate's runner as CommonJS, loaded when the schema is migrated
//
// Why: Node's ESM loader resolves, reads, compiles and links each module on its own, and an
// unbundled start loaded 85 of ours before its first reply (bench case `cold-start`). One file
// leaves its compilation as the largest cost, and V8 caches compiled code for classic scripts
// only (Node 20 has no compile cache for ES modules), hence CommonJS (src/main/code-cache.ts).
//
// What loads lazily stays lazy: esbuild wraps each module in a function run on first import,
// and an external package's require() runs there, so the socket listener (ws), metrics
// (prom-client), the lockfile backend (proper-lockfile) and the pool (piscina, msgpackr) load
// only when used (piscina from its own bundle, below). Four packages are inlined instead:
// smol-toml (every config.toml is parsed before the first reply), jose and comlink, which ship
// ES modules that Node 20 cannot require(), and msgpackr where it is imported as an ES module:
// the main thread's decoder (src/common/snapshot-decoder.ts) imports `msgpackr/unpack`, which
// the package's exports resolve to its JavaScript module; the pool workers require() the whole
// package at run time, as it is installed. The bench (dist/bench/) runs tsc's output.
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const INLINED = new Set(['smol-toml', 'jose', 'comlink', 'msgpackr']);
const OUT = 'dist/bundle';
const BUNDLE = `${OUT}/thread-host.cjs`;

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Stack traces name the .ts sources (src/common/stack-source-maps.ts, in the workers too);
  // the sources are in the repository, so the maps need not carry them, and smaller maps are
  // cheaper to read.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
  // Minified in whitespace and syntax, not in names: every start reads, decodes and hands V8
  // the whole main bundle before its cache is checked, at a cost in proportion to its size
  // (bench case `cold-start`), and a worker parses its entry at every pool start. Names stay,
  // so a stack reads as the code does even before its frames are mapped to the sources. ASCII
  // only (esbuild escapes the rest) and license comments in a file beside each bundle, so that
  // a bundle run from its code cache can be read as latin1, a plain copy, instead of being
  // decoded as UTF-8 (src/main/code-cache.ts; checked below).
  minifyWhitespace: true,
  minifySyntax: true,
  charset: 'ascii',
  legalComments: 'external',
};

/** Fails the build if `file`, which src/main/code-cache.ts reads as latin1, is not ASCII. */
function assertAscii(file) {
  if (/[^\x00-\x7f]/.test(readFileSync(file, 'latin1'))) throw new Error(`${file} has bytes outside ASCII, so it cannot be read as latin1 (src/main/code-cache.ts)`);
}

// One CommonJS file per entry. The sources are ES modules: strict, and with import.meta.url,
// which CommonJS lacks.
const commonJs = {
  ...common,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  external: Object.keys(pkg.dependencies).filter((name) => !INLINED.has(name)),
  banner: { js: '"use strict";\nvar importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
};

// Piscina, bundled on its own (below), is loaded from its bundle folder beside this one and
// compiled with the code cache the build writes for it (src/main/pool/bundled-piscina.ts).
const piscinaFromBundle = {
  name: 'piscina-from-bundle',
  setup(build) {
    build.onResolve({ filter: /^piscina$/ }, () => ({ path: join(process.cwd(), 'src/main/pool/bundled-piscina.ts') }));
  },
};

// node-pg-migrate ships ES modules only, which the host's bundle (a vm.Script) cannot import():
// it is bundled on its own into CommonJS (below), and the host's import of it is resolved to
// src/common/postgres/bundled-node-pg-migrate.ts, which require()s that file.
const NODE_PG_MIGRATE_OUT = `${OUT}/node-pg-migrate`;
const nodePgMigrateFromBundle = {
  name: 'node-pg-migrate-from-bundle',
  setup(build) {
    build.onResolve({ filter: /^node-pg-migrate$/ }, () => ({ path: join(process.cwd(), 'src/common/postgres/bundled-node-pg-migrate.ts') }));
  },
};

rmSync(OUT, { recursive: true, force: true });
await build({
  ...commonJs,
  external: commonJs.external.filter((name) => name !== 'piscina' && name !== 'node-pg-migrate'),
  plugins: [piscinaFromBundle, nodePgMigrateFromBundle],
  entryPoints: { 'thread-host': 'src/main/cli.ts' },
  outdir: OUT,
  // THREAD_HOST_BUNDLE tells src/main/build-layout.ts that it runs from dist/bundle/.
  define: { 'import.meta.url': 'importMetaUrl', THREAD_HOST_BUNDLE: 'true' },
});
assertAscii(BUNDLE);
// The command itself, CommonJS too: Node reaches an ES module entry later than a CommonJS one
// (its ESM loader's own modules load first, as process.uptime() at the entry shows),
// and this file is only a few lines. The folder's package.json says so, as the repository's
// says ES modules.
await build({ ...commonJs, outExtension: {}, entryPoints: { cli: 'src/main/bin.ts' }, outdir: OUT, define: { 'import.meta.url': 'importMetaUrl' } });
writeFileSync(`${OUT}/package.json`, '{ "type": "commonjs" }\n');
// The worker entries too, for the same reason: a pool worker loaded ~60 of our ES modules one
// by one before it could host an actor, on a process's first thread/start's path (bench case
// `cold-start`). Piscina require()s a CommonJS entry directly; comlink is inlined as above.
await build({
  ...commonJs,
  entryPoints: {
    'thread-host': 'workers/thread-host.ts',
    'line-parser': 'workers/line-parser.ts',
    'stored-history': 'workers/stored-history.ts',
    'codex-state': 'workers/codex-state.ts',
  },
  outdir: `${OUT}/workers`,
  define: { 'import.meta.url': 'importMetaUrl' },
});

// node-pg-migrate's runner as one CommonJS file (see nodePgMigrateFromBundle above). Its own
// dependencies stay in node_modules: each has a CommonJS entry.
await build({
  ...common,
  format: 'cjs',
  entryPoints: { index: createRequire(import.meta.url).resolve('node-pg-migrate') },
  outdir: NODE_PG_MIGRATE_OUT,
  outExtension: { '.js': '.cjs' },
  external: ['pg', 'jiti', 'glob'],
  // Only the creation of new migration files reads import.meta (a template's folder); the
  // runner never does.
  logOverride: { 'empty-import-meta': 'silent' },
});

// The PostgreSQL store's schema migrations are SQL files that node-pg-migrate reads at run time
// from a folder beside the module that runs them (src/common/postgres/schema-migrations.ts): the
// main bundle's, and tsc's output of that module for the bench and the unbundled build.
const MIGRATIONS = 'src/common/postgres/migrations';
for (const target of [`${OUT}/migrations`, `dist/${MIGRATIONS}`]) cpSync(MIGRATIONS, target, { recursive: true });

// Piscina itself: from node_modules it loaded 15 modules one by one on the main thread at a
// process's first thread/start while that client's next request waited, and each pool
// worker loaded its bootstrap's share again before it could host an actor. Piscina starts its
// workers on the bootstrap beside its main file (`worker.js` in its `__dirname`), so both are
// bundled into one folder, which a package.json marks CommonJS (the repository's is ESM).
const PISCINA_OUT = `${OUT}/piscina`;
// Found as Node finds them: the package's `require` entry, and its bootstrap beside it.
const piscinaMain = createRequire(import.meta.url).resolve('piscina');
await build({
  ...common,
  format: 'cjs',
  entryPoints: { index: piscinaMain, worker: join(dirname(piscinaMain), 'worker.js') },
  outdir: PISCINA_OUT,
  // Optional (thread priorities), absent here; piscina carries on without it.
  external: ['@napi-rs/nice'],
});
writeFileSync(`${PISCINA_OUT}/package.json`, '{ "type": "commonjs" }\n');
assertAscii(`${PISCINA_OUT}/index.js`);

// The code caches of the two bundles a host compiles itself (src/main/code-cache.ts): each is
// only good for this Node (V8 checks its version and flags and rejects a mismatch), so it is
// made where the package is built, by `npm ci` (prepare) or `npm run build`, in a process of
// its own (scripts/write-code-cache.mjs), so that this one's flags stay out of it.
for (const bundle of [BUNDLE, `${PISCINA_OUT}/index.js`]) {
  const written = spawnSync(process.execPath, ['scripts/write-code-cache.mjs', bundle], { encoding: 'utf8', timeout: 60_000 });
  if (written.status !== 0) throw new Error(`the code cache of ${bundle} was not written (exit ${written.status}):\n${written.stdout}${written.stderr}`);
}
