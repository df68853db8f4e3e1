// Built on its own beside the main bundle (scripts/bundle.mjs) and loaded by Node's CommonJS
// loader, where import() works, unlike inside the bundle's vm.Script (src/common/esm-import.ts).
export const importFromOutside = (specifier: string): Promise<unknown> => import(specifier);
