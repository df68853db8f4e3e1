// Actor events worker → main through a real worker_threads Worker and MessagePort, per codec
// and event kind: the worker encodes and posts, main decodes (bench/lib/event-codecs.ts).
//   burst: EVENTS events within a credit window → throughput (events/s) and per-event latency
//   paced: PACED events one at a time → unloaded one-way latency (nested as `paced`)
// Codecs alternate within each kind so drift hits all alike. The servers play no part here:
// --server-cmd and --compare are accepted for a uniform command line and ignored.
//   node dist/bench/codec.js [--runs N] [--events 200000] [--paced 20000] [--window 1024]
import { deepStrictEqual } from 'node:assert';
import { serialize } from 'node:v8';
import { MessageChannel, Worker } from 'node:worker_threads';
import { EVENT_KINDS, sampleEvent, type EventKind } from './lib/actor-event-samples.js';
import { parseBenchOptions, positiveInt } from './lib/bench-options.js';
import { runBench } from './lib/bench-run.js';
import { type CodecControl, type CodecWorkerData, crossThreadNowMs } from './lib/codec-protocol.js';
import { withDeadline } from './lib/deadline.js';
import { CODEC_NAMES, createCodec, type CodecName, type EventCodec } from './lib/event-codecs.js';
import { LatencyHistogram, roundMs, type LatencySummary } from './lib/histogram.js';
import { fmt, median, ratio } from './lib/report.js';

const options = parseBenchOptions(
  process.argv.slice(2),
  { events: { type: 'string' }, paced: { type: 'string' }, window: { type: 'string' } },
  /*default deadline s*/ 900,
);
const EVENTS = positiveInt(options.values.events, 'events', 200_000);
const PACED = positiveInt(options.values.paced, 'paced', 20_000);
/** Events in flight during a burst; bounds the port queue's memory (see codec-worker.ts). */
const WINDOW = positiveInt(options.values.window, 'window', 1024);
/** Credit goes back every quarter window: fewer control messages, the pipe never runs dry. */
const CREDIT_EVERY = Math.max(1, WINDOW >> 2);
/** JIT warm-up per codec and kind, unmeasured. */
const WARMUP = 5_000;
/** Even 200k events through the slowest codec take a few seconds; this bounds a stall. */
const PHASE_DEADLINE_MS = 120_000;
const BASELINE: CodecName = 'structured-clone';

/** A finished burst/paced pair for one codec and kind. */
interface CodecResult {
  codec: CodecName;
  kind: EventKind;
  eventsPerSec: number;
  burst: LatencySummary;
  paced: LatencySummary;
}

class CodecBench {
  readonly #channel = new MessageChannel();
  readonly #stamps = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * Math.max(EVENTS, PACED, WARMUP));
  readonly #stampView = new Float64Array(this.#stamps);
  readonly #worker: Worker;
  readonly #decoders = new Map<CodecName, EventCodec>();
  /** Bytes of the first received message and of the buffer that carried it. */
  lastSizes = { encodedBytes: 0, copiedBytes: 0 };

  constructor() {
    const data: CodecWorkerData = { eventPort: this.#channel.port2, stamps: this.#stamps };
    this.#worker = new Worker(new URL('./codec-worker.js', import.meta.url), { workerData: data, transferList: [this.#channel.port2] });
  }

  /** Runs one phase; resolves with elapsed ms (start → last decode) and per-event latency. */
  phase(codec: CodecName, kind: EventKind, mode: 'burst' | 'paced', count: number, verify = false): Promise<{ elapsedMs: number; latency: LatencyHistogram }> {
    let decoder = this.#decoders.get(codec);
    if (!decoder) this.#decoders.set(codec, (decoder = createCodec(codec)));
    const d = decoder;
    const latency = new LatencyHistogram();
    const expected = verify ? sampleEvent(kind) : null;
    const port = this.#channel.port1;
    let received = 0;
    const startedAt = crossThreadNowMs();
    const done = new Promise<{ elapsedMs: number; latency: LatencyHistogram }>((resolve, reject) => {
      port.on('message', (message: unknown) => {
        const event = d.decode(message);
        const now = crossThreadNowMs();
        latency.recordMs(now - this.#stampView[received]!);
        if (received === 0) this.#noteSizes(message, event);
        if (expected !== null && received === 0) {
          try {
            deepStrictEqual(event, expected); // a codec that loses a field is not a contender
          } catch (error) {
            reject(new Error(`${codec} does not round-trip ${kind}: ${String(error)}`));
          }
        } else if (event.type !== kind) {
          reject(new Error(`${codec}: got ${event.type}, expected ${kind}`)); // also keeps decode observable
        }
        received += 1;
        if (received === count) {
          port.removeAllListeners('message');
          resolve({ elapsedMs: now - startedAt, latency });
        } else if (mode === 'paced') {
          this.#control({ cmd: 'next' });
        } else if (received % CREDIT_EVERY === 0) {
          this.#control({ cmd: 'credit', received });
        }
      });
    });
    this.#control({ cmd: 'start', codec, kind, count, mode, window: WINDOW });
    return withDeadline(done, PHASE_DEADLINE_MS, `${codec}/${kind}/${mode}`);
  }

  async close(): Promise<void> {
    this.#channel.port1.close();
    await this.#worker.terminate();
  }

  #control(message: CodecControl): void {
    this.#worker.postMessage(message);
  }

  #noteSizes(message: unknown, event: unknown): void {
    this.lastSizes =
      message instanceof Uint8Array
        ? { encodedBytes: message.byteLength, copiedBytes: message.buffer.byteLength }
        : { encodedBytes: serialize(event).byteLength, copiedBytes: serialize(event).byteLength };
  }
}

runBench('codec', options.deadlineMs, async () => {
  if (options.values['server-cmd'] !== undefined || options.values.compare !== undefined) {
    process.stderr.write('codec: --server-cmd/--compare ignored; this bench compares codecs, not servers\n');
  }
  const bench = new CodecBench();
  const results: CodecResult[] = [];
  try {
    for (let run = 1; run <= options.runs; run += 1) {
      for (const kind of EVENT_KINDS) {
        for (const codec of CODEC_NAMES) {
          await bench.phase(codec, kind, 'burst', WARMUP, /*verify*/ true);
          const burst = await bench.phase(codec, kind, 'burst', EVENTS);
          const sizes = bench.lastSizes;
          const paced = await bench.phase(codec, kind, 'paced', PACED);
          const result: CodecResult = {
            codec,
            kind,
            eventsPerSec: Math.round((EVENTS * 1000) / burst.elapsedMs),
            burst: burst.latency.summary(),
            paced: paced.latency.summary(),
          };
          results.push(result);
          process.stdout.write(
            JSON.stringify({
              scenario: 'codec', codec, kind, run, events: EVENTS, window: WINDOW, eventsPerSec: result.eventsPerSec,
              ...sizes, unit: 'ms', ...result.burst, paced: result.paced,
            }) + '\n',
          );
        }
      }
    }
  } finally {
    await bench.close();
  }
  printRatios(results);
});

/** The final JSON line (each codec over structured clone, medians over runs) and a table. */
function printRatios(results: CodecResult[]): void {
  const med = (codec: CodecName, kind: EventKind, pick: (r: CodecResult) => number): number =>
    median(results.filter((r) => r.codec === codec && r.kind === kind).map(pick));
  const byKind: Record<string, Record<string, { throughput: number; burstP50: number; pacedP50: number }>> = {};
  const rows = ['', `| kind | codec | events/s | burst p50 ms | burst p99 ms | paced p50 ms | paced p99 ms | throughput ×SC | paced p50 ×SC |`, '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const kind of EVENT_KINDS) {
    const base = { eps: med(BASELINE, kind, (r) => r.eventsPerSec), paced: med(BASELINE, kind, (r) => r.paced.p50), burst: med(BASELINE, kind, (r) => r.burst.p50) };
    byKind[kind] = {};
    for (const codec of CODEC_NAMES) {
      const eps = med(codec, kind, (r) => r.eventsPerSec);
      const pacedP50 = med(codec, kind, (r) => r.paced.p50);
      const burstP50 = med(codec, kind, (r) => r.burst.p50);
      if (codec !== BASELINE) {
        byKind[kind]![codec] = { throughput: roundMs(eps / base.eps), burstP50: roundMs(burstP50 / base.burst), pacedP50: roundMs(pacedP50 / base.paced) };
      }
      rows.push(
        `| ${kind} | ${codec} | ${eps} | ${fmt(burstP50)} | ${fmt(med(codec, kind, (r) => r.burst.p99))} | ${fmt(pacedP50)} | ${fmt(med(codec, kind, (r) => r.paced.p99))} | ${ratio(base.eps, eps)} | ${ratio(base.paced, pacedP50)} |`,
      );
    }
  }
  process.stdout.write(JSON.stringify({ scenario: 'codec-ratio', baseline: BASELINE, note: 'codec / baseline; throughput >1 is faster, latency >1 is slower', byKind }) + '\n');
  process.stdout.write(rows.join('\n') + '\n');
}
