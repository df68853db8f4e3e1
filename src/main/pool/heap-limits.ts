// How big each isolate's young generation may grow. It, not the threads' own objects, was most
// of what 10,000 loaded threads cost: loading them makes enough objects survive scavenges that
// V8 doubles every isolate's semi-spaces up to 16 MB in the main thread and in each worker,
// which was most of what the host grew by, more than the threads' live objects. V8 shrinks
// them again only when its memory reducer decides the isolate is idle, which the main thread
// never was within 30 s of unloading them all. (Bench case `scale`, read with the heap
// statistics of all three isolates.)
//
// A small young generation costs more frequent scavenges, each proportional to what survives,
// not to what was allocated; the host's allocation is many small short-lived objects (messages,
// events, lines), which die young at any size.
import { builtin } from '../lazy-builtin.js';

/** Pool workers: 3 MB of young generation is V8's smallest, one 1 MB semi-space pair. */
export const WORKER_MAX_YOUNG_GENERATION_MB = 3;

/**
 * Keeps the main thread's semi-spaces at their current size (V8 grows them by this factor).
 * Node has no per-isolate limit for the main thread short of a command-line flag, and applies
 * the process's flags again when it creates a worker, so the pool calls this once each of its
 * workers is up.
 */
export function holdMainYoungGeneration(): void {
  builtin<typeof import('node:v8')>('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}
