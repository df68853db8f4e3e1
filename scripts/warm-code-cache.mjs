// Run by scripts/bundle.mjs: one start of the CLI bundle (`app-server` over stdio, an
// initialize request, then stdin's end) in the home given, and, as the process exits, V8's
// code cache of everything compiled by then, written beside the bundle. A cache of the top
// level alone leaves each function that a start runs to be compiled at every start.
import { resolve } from 'node:path';
import { compileBundle, runBundle, writeCodeCache } from '../dist/src/main/code-cache.js';

const bundle = resolve(process.argv[2]);
const { script } = compileBundle(bundle);
process.on('exit', () => writeCodeCache(bundle, script));
// The CLI reads its command from process.argv, as it would when run as `thread-host app-server`.
process.argv.splice(2, Infinity, 'app-server');
runBundle(bundle, script);
