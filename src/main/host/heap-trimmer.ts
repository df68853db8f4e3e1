// Gives the C heap's free pages back to the kernel once a burst of unloads has settled and the
// garbage collector has freed what the unloaded threads held. Each thread's load and unload
// leave the main thread's malloc arena more fragmented (buffers, messages, native handles,
// freed in whatever order the collector finds them), and glibc returns freed memory only from
// the very top of a heap, past a threshold that grows with the largest block ever freed. After
// 10,000 threads loaded and unloaded, the process held ~4 MB of anonymous memory more than
// before, free in those arenas (`bench scale`; docs/BENCHMARKS.md). malloc_trim(3) hands those
// pages back; it is glibc's, reached through a small native addon (native/heap-trim.c) that
// runs it on libuv's pool, never on the event loop.
//
// The steps: at least TRIM_AFTER_UNLOADS unloads since the last trim; then QUIET_MS without
// another (or MAX_WAIT_MS after the count was reached, under a steady churn); then the next
// major collection on the main thread (V8's memory reducer runs a short series of them some
// seconds after allocation slows, which is when the unloaded threads' memory is freed), and
// QUIET_MS after the last of that series, or GC_WAIT_MS if none comes. Where the addon is
// missing (installed with --ignore-scripts) or the C library has no such call, nothing runs.
import { createRequire } from 'node:module';
import type { Clock } from '../../common/clock.js';
import type { LogFn } from '../../common/log.js';
import { packagePath } from '../build-layout.js';
import { builtin } from '../lazy-builtin.js';

/** The addon's one call: a promise of whether pages were released, or null where unsupported. */
export interface HeapTrim {
  trim(): Promise<boolean> | null;
}

/** Unloads since the last trim that make the next one worth its walk of the heap. */
export const TRIM_AFTER_UNLOADS = 256;
/** How long unloads (then collections) must pause: a burst is one trim, at its end. */
export const QUIET_MS = 1_000;
/** A steady churn never pauses; the wait for collections then starts this long after the count was reached. */
export const MAX_WAIT_MS = 10_000;
/** How long to wait for a major collection before trimming without one. */
export const GC_WAIT_MS = 30_000;

/** Calls `onMajor` after each major collection of the main thread's heap until the returned stop is called. */
export type MajorCollections = (onMajor: () => void) => () => void;

export interface HeapTrimmerDeps {
  clock: Clock;
  /** Loads the addon, at the first trim (not at start: nothing needs it before). */
  load: () => HeapTrim | null;
  majorCollections: MajorCollections;
  log: LogFn;
}

type Phase = { kind: 'counting' } | { kind: 'quieting'; since: number } | { kind: 'awaitingCollection'; stop: () => void } | { kind: 'trimming' };

export class HeapTrimmer {
  readonly #deps: HeapTrimmerDeps;
  #heap: HeapTrim | null | undefined;
  #unloads = 0;
  #phase: Phase = { kind: 'counting' };
  #timer: unknown = null;

  constructor(deps: HeapTrimmerDeps) {
    this.#deps = deps;
  }

  /** Counts one unload; starts (or pushes back) the wait for quiet once enough have happened. */
  noteUnloaded(): void {
    if (this.#heap === null) return;
    this.#unloads += 1;
    const phase = this.#phase;
    if (phase.kind === 'counting' && this.#unloads >= TRIM_AFTER_UNLOADS) this.#quiet(this.#deps.clock.now());
    else if (phase.kind === 'quieting') this.#quiet(phase.since);
  }

  #quiet(since: number): void {
    this.#phase = { kind: 'quieting', since };
    this.#schedule(this.#quietDelay(since + MAX_WAIT_MS), () => this.#awaitCollection());
  }

  #awaitCollection(): void {
    // Each major collection pushes the trim QUIET_MS back, so a series ends in one trim; under
    // collections that never pause (a heap near its limit) it still runs at the deadline.
    const deadline = this.#deps.clock.now() + GC_WAIT_MS;
    const stop = this.#deps.majorCollections(() => this.#schedule(this.#quietDelay(deadline), () => this.#startTrim()));
    this.#phase = { kind: 'awaitingCollection', stop };
    this.#schedule(GC_WAIT_MS, () => this.#startTrim());
  }

  /** QUIET_MS, or less so as not to pass `deadline`. */
  #quietDelay(deadline: number): number {
    return Math.min(QUIET_MS, Math.max(0, deadline - this.#deps.clock.now()));
  }

  #startTrim(): void {
    this.#trim().catch((error: unknown) => {
      // A trim that could not even start (the addon threw: no memory to queue it, a broken
      // build) is not retried: the host goes on without trimming.
      this.#heap = null;
      this.#phase = { kind: 'counting' };
      this.#deps.log('warn', 'heap trimming stopped', { error: (error as Error).message });
    });
  }

  #schedule(ms: number, run: () => void): void {
    if (this.#timer !== null) this.#deps.clock.clearTimeout(this.#timer);
    this.#timer = this.#deps.clock.setTimeout(() => {
      this.#timer = null;
      run();
    }, ms);
  }

  async #trim(): Promise<void> {
    if (this.#phase.kind === 'awaitingCollection') this.#phase.stop();
    this.#phase = { kind: 'trimming' };
    this.#heap ??= this.#loadOnce();
    const trimming = this.#heap?.trim() ?? null;
    if (trimming === null) {
      this.#heap = null; // unsupported here: stop counting
      this.#phase = { kind: 'counting' };
      return;
    }
    const unloads = this.#unloads;
    const startedAt = this.#deps.clock.now();
    this.#unloads = 0;
    try {
      const released = await trimming;
      this.#deps.log('debug', 'heap trimmed', { unloads, released, ms: this.#deps.clock.now() - startedAt });
    } catch (error) {
      this.#deps.log('warn', 'heap trim failed', { error: (error as Error).message });
    }
    this.#phase = { kind: 'counting' };
    // Unloads that came during the trim count toward the next one.
    if (this.#unloads >= TRIM_AFTER_UNLOADS) this.#quiet(this.#deps.clock.now());
  }

  #loadOnce(): HeapTrim | null {
    try {
      return this.#deps.load();
    } catch (error) {
      this.#deps.log('info', 'heap trimming is unavailable', { reason: (error as Error).message });
      return null;
    }
  }
}

/** The addon built by `npm ci` (node-gyp, binding.gyp) into build/Release. */
export function loadHeapTrimAddon(): HeapTrim {
  return createRequire(import.meta.url)(packagePath('build/Release/heap_trim.node')) as HeapTrim;
}

/** Major collections of this thread's heap, observed only while someone listens (perf_hooks loads then, not at start). */
export const majorCollections: MajorCollections = (onMajor) => {
  const { constants, PerformanceObserver } = builtin<typeof import('node:perf_hooks')>('node:perf_hooks');
  const observer = new PerformanceObserver((list) => {
    const entries = list.getEntries() as Array<{ detail?: { kind?: number } }>;
    if (entries.some((entry) => entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) onMajor();
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
};
