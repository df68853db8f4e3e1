// Bundles the main thread's start path (src/main/cli.ts and everything it imports) into
// dist/bundle/cli.js with esbuild, after `tsc` has built dist/. Why: Node's ESM loader resolves,
// reads, compiles and links each module on its own, and a start used to load ~90 of ours before
// the first reply, about half of the cold start (docs/BENCHMARKS.md, "Cold start").
//
// What stays out of the bundle, and why:
// - npm packages (piscina, comlink, msgpackr, ws, jose, prom-client, proper-lockfile, fs-ext):
//   most are loaded lazily by dynamic import or createRequire, and a bundled copy would be
//   compiled at every start whether used or not; fs-ext is a native addon. smol-toml is the
//   exception: every home with a config.toml parses it before the first reply, and inlined it
//   costs less than resolving the package through node_modules.
// - the pool workers (workers/thread-host.ts): piscina loads them by path from dist/workers/,
//   after the first reply; tsc's output is what runs there.
// - the bench: it runs as its own process (dist/bench/main.js).
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const INLINED = new Set(['smol-toml']);

// Chunk names carry content hashes: clear the old ones so dist/bundle holds one build.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { cli: 'src/main/cli.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  platform: 'node',
  format: 'esm',
  splitting: true,
  target: 'node20',
  external: Object.keys(pkg.dependencies).filter((name) => !INLINED.has(name)),
  // Tells src/main/build-layout.ts that it runs from dist/bundle/.
  define: { THREAD_HOST_BUNDLE: 'true' },
  // Stack traces name the .ts sources (cli.ts turns source maps on); the sources themselves are
  // in the repository, so the map need not carry them, and a smaller map is cheaper to load.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
