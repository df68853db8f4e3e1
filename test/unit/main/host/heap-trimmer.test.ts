// When the host gives the C heap's free pages back: after a burst of enough unloads has
// settled and the collector has run (or has not, for long), once per burst; never where the
// addon cannot trim. A fake clock and fake collections; the real addon is loaded last.
import { describe, expect, test } from 'vitest';
import { GC_WAIT_MS, HeapTrimmer, loadHeapTrimAddon, MAX_WAIT_MS, QUIET_MS, TRIM_AFTER_UNLOADS, type HeapTrim } from '../../../../src/main/host/heap-trimmer.js';
import { FakeClock } from '../../../helpers/fake-clock.js';

interface Rig {
  clock: FakeClock;
  trimmer: HeapTrimmer;
  /** The times (fake clock) each trim was asked for. */
  trims: number[];
  /** Runs a major collection: every listener is told. */
  collect(): void;
  listeners(): number;
  logs: Array<[string, string, Record<string, unknown> | undefined]>;
}

function rig(heap: HeapTrim | null = null, load?: () => HeapTrim | null): Rig {
  const clock = new FakeClock();
  const trims: number[] = [];
  const listening = new Set<() => void>();
  const logs: Rig['logs'] = [];
  const fake: HeapTrim = heap ?? { trim: () => (trims.push(clock.now()), Promise.resolve(true)) };
  const trimmer = new HeapTrimmer({
    clock,
    load: load ?? (() => fake),
    majorCollections: (onMajor) => {
      listening.add(onMajor);
      return () => listening.delete(onMajor);
    },
    log: (level, message, fields) => logs.push([level, message, fields]),
  });
  return { clock, trimmer, trims, collect: () => [...listening].forEach((on) => on()), listeners: () => listening.size, logs };
}

const unload = (r: Rig, count: number) => {
  for (let i = 0; i < count; i += 1) r.trimmer.noteUnloaded();
};
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a heap trim', () => {
  test('waits for enough unloads, their quiet, then the collections after them', async () => {
    const r = rig();
    unload(r, TRIM_AFTER_UNLOADS - 1);
    r.clock.advance(GC_WAIT_MS * 2);
    expect([r.trims, r.listeners()]).toEqual([[], 0]);
    unload(r, 1); // the count is reached at t = 2 × GC_WAIT_MS
    const reached = r.clock.now();
    r.clock.advance(QUIET_MS - 1);
    expect(r.listeners()).toBe(0);
    r.clock.advance(1); // quiet: now listening for collections
    expect(r.listeners()).toBe(1);
    r.clock.advance(5_000);
    r.collect();
    r.clock.advance(600);
    r.collect(); // a series of collections: the trim follows the last
    r.clock.advance(QUIET_MS);
    await settle();
    expect(r.trims).toEqual([reached + QUIET_MS + 5_000 + 600 + QUIET_MS]);
    expect(r.listeners()).toBe(0);
    expect(r.logs).toEqual([['debug', 'heap trimmed', { unloads: TRIM_AFTER_UNLOADS, released: true, ms: 0 }]]);
  });

  test('under a steady churn runs MAX_WAIT_MS after the count was reached, and without a collection after GC_WAIT_MS', async () => {
    const r = rig();
    unload(r, TRIM_AFTER_UNLOADS);
    for (let t = 0; t < MAX_WAIT_MS; t += QUIET_MS / 2) {
      r.clock.advance(QUIET_MS / 2);
      unload(r, 1);
    }
    expect(r.listeners()).toBe(1);
    r.clock.advance(GC_WAIT_MS);
    await settle();
    expect(r.trims).toEqual([MAX_WAIT_MS + GC_WAIT_MS]);
    expect(r.logs).toEqual([['debug', 'heap trimmed', { unloads: TRIM_AFTER_UNLOADS + (2 * MAX_WAIT_MS) / QUIET_MS, released: true, ms: 0 }]]);
  });

  test('unloads during a trim count toward the next one, which follows its own quiet and collection', async () => {
    let finish!: (released: boolean) => void;
    const started: number[] = [];
    const slow: Rig = rig({ trim: () => (started.push(slow.clock.now()), new Promise<boolean>((resolve) => (finish = resolve))) });
    unload(slow, TRIM_AFTER_UNLOADS);
    slow.clock.advance(QUIET_MS + GC_WAIT_MS);
    expect(started).toEqual([QUIET_MS + GC_WAIT_MS]);
    unload(slow, TRIM_AFTER_UNLOADS); // while trimming: counted, not yet armed
    slow.clock.advance(QUIET_MS * 5);
    expect(slow.listeners()).toBe(0);
    finish(false);
    await settle();
    slow.clock.advance(QUIET_MS);
    slow.collect();
    slow.clock.advance(QUIET_MS);
    await settle();
    expect(started).toEqual([QUIET_MS + GC_WAIT_MS, QUIET_MS + GC_WAIT_MS + QUIET_MS * 5 + QUIET_MS + QUIET_MS]);
  });

  test('collections that never pause still end in a trim, GC_WAIT_MS after the wait for them began', async () => {
    const r = rig();
    unload(r, TRIM_AFTER_UNLOADS);
    r.clock.advance(QUIET_MS);
    for (let t = 0; t < GC_WAIT_MS * 2; t += QUIET_MS / 2) {
      r.collect();
      r.clock.advance(QUIET_MS / 2);
    }
    await settle();
    expect(r.trims).toEqual([QUIET_MS + GC_WAIT_MS]);
    expect(r.listeners()).toBe(0);
  });

  test('an addon that throws instead of trimming stops the trimming, logged, and leaves nothing scheduled', async () => {
    const r = rig({
      trim: () => {
        throw new Error('heap trim could not be queued');
      },
    });
    unload(r, TRIM_AFTER_UNLOADS);
    r.clock.advance(QUIET_MS + GC_WAIT_MS);
    await settle();
    unload(r, TRIM_AFTER_UNLOADS * 2);
    expect([r.clock.activeTimers(), r.listeners()]).toEqual([0, 0]);
    expect(r.logs).toEqual([['warn', 'heap trimming stopped', { error: 'heap trim could not be queued' }]]);
  });

  test('where the C library cannot trim, or the addon is missing, nothing more is counted or scheduled', async () => {
    const cases = [
      { load: () => ({ trim: () => null }), logs: [] },
      {
        load: () => {
          throw new Error('Cannot find module heap_trim.node');
        },
        logs: [['info', 'heap trimming is unavailable', { reason: 'Cannot find module heap_trim.node' }]],
      },
    ];
    for (const { load, logs } of cases) {
      const r = rig(null, load);
      unload(r, TRIM_AFTER_UNLOADS);
      r.clock.advance(QUIET_MS + GC_WAIT_MS);
      await settle();
      unload(r, TRIM_AFTER_UNLOADS * 2);
      expect([r.clock.activeTimers(), r.listeners(), r.logs]).toEqual([0, 0, logs]);
    }
  });

  test("the addon npm ci built trims this process's heap where its C library is glibc", async () => {
    const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
    const trimming = loadHeapTrimAddon().trim();
    if (glibc === undefined) expect(trimming).toBeNull();
    else expect(typeof (await trimming)).toBe('boolean');
  });
});
