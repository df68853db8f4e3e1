// Runs the CLI bundle (dist/bundle/thread-host.cjs) from V8's code cache. Compiling the bundle
// is most of what a start costs once its modules are one file, and Node 20 caches no compiled
// code of its own (`module.enableCompileCache` is Node 22). V8 takes a cache for a classic
// script only, hence a CommonJS bundle compiled with `vm.Script`, whose cache the build writes
// beside it (`<bundle>.cache`) from compiling it eagerly, without running any of it
// (scripts/write-code-cache.mjs): every function a start or a first request runs is in it.
//
// V8 checks a cache against the source, its own version and its flags; one that does not match
// (another Node, `--inspect`, …) is rejected and the bundle compiles as if there were none.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** What became of the cache when the bundle was compiled. */
export type CodeCacheOutcome = 'accepted' | 'rejected' | 'absent';

/** Where the cache of `bundle` lives. */
export const codeCacheFile = (bundle: string): string => `${bundle}.cache`;

// The CommonJS wrapper, on the bundle's first line so that line numbers (and source maps) hold;
// a shebang line is emptied, as Node's own loader ignores it.
const wrap = (source: string): string =>
  `(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!.*/, '')}\n})`;

/** Compiles `bundle`, with its cache when there is one that V8 accepts. */
export function compileBundle(bundle: string): { script: Script; cache: CodeCacheOutcome } {
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(codeCacheFile(bundle));
  } catch {
    cachedData = undefined;
  }
  // latin1: the build writes its bundles in ASCII (scripts/bundle.mjs checks), which latin1
  // copies as it is, where a UTF-8 decode of the whole bundle is slower (bench case
  // `cold-start`).
  const script = new Script(wrap(readFileSync(bundle, 'latin1')), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  return { script, cache: cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted' };
}

/** Runs a compiled bundle as Node runs a CommonJS module; returns its exports. */
export function runBundle(bundle: string, script: Script): unknown {
  const module = { exports: {} as unknown };
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return module.exports;
}

/** V8's cache of everything `script` has compiled so far: its top level, and each function run. */
export function writeCodeCache(bundle: string, script: Script): void {
  writeFileSync(codeCacheFile(bundle), script.createCachedData());
}
