// Run by scripts/warm-session.mjs (for scripts/bundle.mjs): the CLI bundle (`app-server` over
// stdio) run in this process, and, as the process exits, V8's code cache of everything compiled
// by then, written beside the bundle. A cache of the top level alone leaves each function that
// a request runs to be compiled when it first runs.
//
// V8 stamps a cache with the process's flags and rejects it in a process whose flags differ.
// The pool's start sets one on the main thread (--semi-space-growth-factor, src/main/pool/
// heap-limits.ts), which would stamp this cache with a flag no later start has at compile time,
// so here setting flags does nothing: this process's heap sizing does not matter.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { compileBundle, runBundle, writeCodeCache } from '../dist/src/main/code-cache.js';

createRequire(import.meta.url)('node:v8').setFlagsFromString = () => undefined;
const bundle = resolve(process.argv[2]);
const { script } = compileBundle(bundle);
process.on('exit', () => writeCodeCache(bundle, script));
// The CLI reads its command from process.argv, as it would when run as `thread-host app-server`.
process.argv.splice(2, Infinity, 'app-server');
runBundle(bundle, script);
