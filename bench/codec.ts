// How actor data crosses worker → main, measured through a real Worker and MessagePort, for the
// two decisions recorded in src/common/snapshot-codec.ts:
//   events:    each per-turn ActorEvent kind through each event codec (lib/event-codecs.ts)
//              burst: EVENTS events within a credit window → throughput and per-event latency
//              paced: PACED events one at a time → unloaded one-way latency
//   snapshots: a cold resume's ActorResumeState of 10/100/1000/5000 turns, structured clone
//              against encodeSnapshot/decodeSnapshot with the buffer transferred, one in
//              flight: one-way latency, and the decode time the main thread pays
// Codecs alternate within each kind and size, so drift hits all alike. No server is involved.
//   node dist/bench/codec.js [--runs N] [--only events|snapshots] [--events 200000] [--paced 20000]
//        [--window 1024] [--sizes 10,100,1000,5000]
import { parseArgs } from 'node:util';
import { EVENT_KINDS } from './lib/actor-event-samples.js';
import { positiveInt } from './lib/bench-options.js';
import { CodecBench, structuredCloneDecodeEstimate } from './lib/codec-bench.js';
import { SNAPSHOT_CODECS } from './lib/codec-protocol.js';
import { printEventRatios, printSnapshotRatios, type EventResult, type SnapshotResult } from './lib/codec-report.js';
import { CODEC_NAMES } from './lib/event-codecs.js';
import { SNAPSHOT_SIZES } from './lib/snapshot-samples.js';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    runs: { type: 'string' },
    only: { type: 'string' },
    events: { type: 'string' },
    paced: { type: 'string' },
    window: { type: 'string' },
    sizes: { type: 'string' },
  },
  strict: true,
});
const RUNS = positiveInt(values.runs, 'runs', 1);
const EVENTS = positiveInt(values.events, 'events', 200_000);
const PACED = positiveInt(values.paced, 'paced', 20_000);
/** Events in flight during a burst; bounds the port queue's memory (see codec-worker.ts). */
const WINDOW = positiveInt(values.window, 'window', 1024);
const SIZES = values.sizes === undefined ? [...SNAPSHOT_SIZES] : values.sizes.split(',').map((s) => positiveInt(s, 'sizes', 1));
/** JIT warm-up per codec and kind (or size), unmeasured. */
const WARMUP = 5_000;
const SNAPSHOT_WARMUP = 5;
/** Repetitions per size: many for small states, enough for a stable p99 on large ones. */
const snapshotReps = (turns: number): number => Math.min(2_000, Math.max(30, Math.round(50_000 / turns)));

async function measureEvents(bench: CodecBench, run: number, results: EventResult[]): Promise<void> {
  for (const kind of EVENT_KINDS) {
    for (const codec of CODEC_NAMES) {
      await bench.phase(codec, kind, 'burst', WARMUP, /*verify*/ true);
      const burst = await bench.phase(codec, kind, 'burst', EVENTS);
      const sizes = bench.lastSizes;
      const paced = await bench.phase(codec, kind, 'paced', PACED);
      const result: EventResult = { codec, kind, eventsPerSec: Math.round((EVENTS * 1000) / burst.elapsedMs), burst: burst.latency.summary(), paced: paced.latency.summary() };
      results.push(result);
      const line = { scenario: 'codec', codec, kind, run, events: EVENTS, window: WINDOW, eventsPerSec: result.eventsPerSec, ...sizes, unit: 'ms', ...result.burst, paced: result.paced };
      process.stdout.write(JSON.stringify(line) + '\n');
    }
  }
}

async function measureSnapshots(bench: CodecBench, run: number, results: SnapshotResult[]): Promise<void> {
  for (const turns of SIZES) {
    const reps = snapshotReps(turns);
    for (const codec of SNAPSHOT_CODECS) {
      await bench.snapshotPhase(codec, turns, SNAPSHOT_WARMUP, /*verify*/ true);
      const phase = await bench.snapshotPhase(codec, turns, reps);
      const mainDecode = codec === 'structured-clone' ? structuredCloneDecodeEstimate(turns, reps) : phase.mainDecode;
      results.push({ codec, turns, run, reps, bytes: phase.bytes, latency: phase.latency.summary(), mainDecode: mainDecode.summary() });
    }
  }
}

const bench = new CodecBench(Math.max(EVENTS, PACED, WARMUP, ...SIZES.map(snapshotReps)), WINDOW);
try {
  const events: EventResult[] = [];
  const snapshots: SnapshotResult[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    if (values.only !== 'snapshots') await measureEvents(bench, run, events);
    if (values.only !== 'events') await measureSnapshots(bench, run, snapshots);
  }
  if (events.length > 0) printEventRatios(events);
  if (snapshots.length > 0) printSnapshotRatios(snapshots);
} catch (error) {
  process.stderr.write(`codec failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await bench.close();
}
