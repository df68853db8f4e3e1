// What `piscina` is inside the bundled host (scripts/bundle.mjs resolves the package to this
// file there; tsc's output imports the package itself). Piscina is bundled on its own, in
// dist/bundle/piscina/, beside the worker bootstrap it starts each worker on, and compiled here
// with the code cache the build wrote for it, as the host's own bundle is: from node_modules
// it loaded 15 modules on the main thread at a process's first thread/start (bench case
// `cold-start`).
import type * as PiscinaPackage from 'piscina';
import { compileBundle, runBundle } from '../code-cache.js';
import { distPath } from '../build-layout.js';

const file = distPath('bundle/piscina/index.js');
const piscina = runBundle(file, compileBundle(file).script) as typeof PiscinaPackage;

export const Piscina = piscina.Piscina;
