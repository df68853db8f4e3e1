// Run by scripts/bundle.mjs for each bundle a host compiles from a code cache (the CLI's and
// piscina's): compiles the bundle as src/main/code-cache.ts does and writes V8's cache of it
// beside it. Nothing of the bundle runs: no server, no home, no lock, no worker.
//
// V8 compiles a function when it is first called, and a cache holds only what was compiled, so a
// cache of a plain compile would leave every function that a start and a process's first
// requests run to be compiled then, on the main thread. Here the bundle is compiled eagerly
// (--no-lazy) and the flag is set back before the cache is made: V8 stamps a cache with the
// flags in force when it is made, and rejects it in a process whose flags differ, so the cache
// carries a plain start's stamp (test/e2e/code-cache.test.ts checks that a fresh process
// accepts it).
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { compileBundle, writeCodeCache } from '../dist/src/main/code-cache.js';

const bundle = resolve(process.argv[2]);
setFlagsFromString('--no-lazy');
// compileBundle takes an existing cache when V8 accepts it; the build removed dist/bundle/ first.
const { script, cache } = compileBundle(bundle);
setFlagsFromString('--lazy');
if (cache !== 'absent') throw new Error(`${bundle} already has a code cache (${cache})`);
writeCodeCache(bundle, script);
