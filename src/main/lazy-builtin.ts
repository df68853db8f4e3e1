// Node built-ins that the start path names but uses only later: crypto for thread ids,
// worker_threads when the pool starts, perf_hooks when stats are on, child_process off Linux,
// v8 for the pool's heap flags, fs/promises for rollout lookups (the warm-up loads it after the
// first reply, src/main/host/warm-up.ts).
// A static import loads a built-in, and every internal module behind it, before the first
// reply (crypto alone is ~20 internal modules); `builtin()` loads it on first use instead.
// Node caches built-ins, so later calls are a map lookup.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The built-in module `name` (`node:crypto`), loaded on the first call. */
export function builtin<T>(name: `node:${string}`): T {
  return require(name) as T;
}

/** `node:fs/promises` (with it, its streams, directory and watcher modules), loaded on first use. */
export const fsPromises = (): typeof import('node:fs/promises') => builtin('node:fs/promises');
