// import() of an ES-module-only package (node-pg-migrate) from code that may run inside the
// main bundle. That bundle runs as a `vm.Script` (src/main/code-cache.ts), where V8 has no
// loader to call for import() without an experimental flag; so the build puts a small CommonJS
// module beside it (esm-import-trampoline.ts, built by scripts/bundle.mjs), loaded by Node's
// own loader, which imports for it. Unbundled (tsc's output, the tests), import() works where
// it is written.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The name of the module the build writes beside the main bundle. */
export const ESM_IMPORT_TRAMPOLINE = 'import-esm.cjs';

/** The package `specifier`, imported as Node imports it. */
export async function importEsm<T>(specifier: string): Promise<T> {
  const trampoline = new URL(`./${ESM_IMPORT_TRAMPOLINE}`, import.meta.url);
  if (existsSync(trampoline)) {
    const { importFromOutside } = createRequire(import.meta.url)(`./${ESM_IMPORT_TRAMPOLINE}`) as typeof import('./esm-import-trampoline.js');
    return (await importFromOutside(specifier)) as T;
  }
  return (await import(specifier)) as T;
}
