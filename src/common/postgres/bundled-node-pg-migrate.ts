// What `node-pg-migrate` is inside the bundled host (scripts/bundle.mjs resolves the package to
// this file there; tsc's output and the tests import the package itself). The package ships ES
// modules only, and the host's bundle runs as a classic script compiled with vm.Script, where
// import() has no loader; so the build bundles the package on its own into CommonJS, in
// dist/bundle/node-pg-migrate/, and this file require()s it. Only a migration imports this
// module, so the package loads then and not at the host's start.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as NodePgMigrate from 'node-pg-migrate';

const file = fileURLToPath(new URL('./node-pg-migrate/index.cjs', import.meta.url));
const bundled = createRequire(import.meta.url)(file) as typeof NodePgMigrate;

export const runner = bundled.runner;
