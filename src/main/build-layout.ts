// Where the build's other entry points sit, found from this module's own URL so no file-system
// lookup runs at start. tsc keeps the source tree (this file becomes dist/src/main/build-layout.js);
// esbuild bundles the CLI into dist/bundle/thread-host.cjs, one level under dist/, and defines
// THREAD_HOST_BUNDLE there (scripts/bundle.mjs).
import { fileURLToPath } from 'node:url';

declare const THREAD_HOST_BUNDLE: boolean;

/** The build's dist/ folder. `typeof` of an undeclared global is 'undefined', so the unbundled build needs no define. */
export const DIST_URL = new URL(typeof THREAD_HOST_BUNDLE === 'boolean' ? '../' : '../../', import.meta.url);

/** Absolute path of a file of the build, given relative to dist/ (`workers/thread-host.js`). */
export function distPath(relative: string): string {
  return fileURLToPath(new URL(relative, DIST_URL));
}

/**
 * A worker's entry: the bundled one (dist/bundle/workers/<name>.cjs) when running from the
 * bundle, so a worker loads one file instead of each module, and tsc's output otherwise.
 */
export function workerEntry(name: 'thread-host' | 'line-parser' | 'stored-history' | 'codex-state'): string {
  return typeof THREAD_HOST_BUNDLE === 'boolean' ? distPath(`bundle/workers/${name}.cjs`) : distPath(`workers/${name}.js`);
}
