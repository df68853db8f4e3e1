// The main-thread side of the codec bench: one real worker_threads Worker (codec-worker.ts)
// posting on a real MessagePort, and phases that receive, decode and time what it sends.
//   phase:          per-event codecs (event-codecs.ts), burst or paced
//   snapshotPhase:  a cold resume's state, structured clone or snapshot-codec.ts + transfer,
//                   one in flight at a time; also times the decode the main thread pays
import { deepStrictEqual } from 'node:assert';
import { performance } from 'node:perf_hooks';
import { deserialize as deserializeV8, serialize } from 'node:v8';
import { MessageChannel, Worker } from 'node:worker_threads';
import { systemClock } from '../../src/common/clock.js';
import { failWith, withDeadline } from '../../src/common/deadline.js';
import { decodeSnapshot } from '../../src/common/snapshot-decoder.js';
import { sampleEvent, type EventKind } from './actor-event-samples.js';
import { type CodecControl, type CodecWorkerData, crossThreadNowMs, type SnapshotCodecName } from './codec-protocol.js';
import { createCodec, type CodecName, type EventCodec } from './event-codecs.js';
import { LatencyHistogram } from './histogram.js';
import { sampleResumeState } from './snapshot-samples.js';

/** Even 200k events through the slowest codec take a few seconds; this bounds a stall. */
const PHASE_DEADLINE_MS = 120_000;

/** A finished snapshot phase: one-way latency, main-thread decode time, bytes on the wire. */
export interface SnapshotPhase {
  latency: LatencyHistogram;
  mainDecode: LatencyHistogram;
  bytes: number;
}

export class CodecBench {
  readonly #channel = new MessageChannel();
  readonly #stamps: SharedArrayBuffer;
  readonly #stampView: Float64Array;
  readonly #worker: Worker;
  readonly #decoders = new Map<CodecName, EventCodec>();
  /** Bytes of the first received message and of the buffer that carried it. */
  lastSizes = { encodedBytes: 0, copiedBytes: 0 };

  constructor(maxMessages: number, private readonly window: number) {
    this.#stamps = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT * maxMessages);
    this.#stampView = new Float64Array(this.#stamps);
    const data: CodecWorkerData = { eventPort: this.#channel.port2, stamps: this.#stamps };
    this.#worker = new Worker(new URL('../codec-worker.js', import.meta.url), { workerData: data, transferList: [this.#channel.port2] });
  }

  /** Runs one event phase; resolves with elapsed ms (start → last decode) and per-event latency. */
  phase(codec: CodecName, kind: EventKind, mode: 'burst' | 'paced', count: number, verify = false): Promise<{ elapsedMs: number; latency: LatencyHistogram }> {
    let decoder = this.#decoders.get(codec);
    if (!decoder) this.#decoders.set(codec, (decoder = createCodec(codec)));
    const d = decoder;
    const latency = new LatencyHistogram();
    const expected = verify ? sampleEvent(kind) : null;
    const creditEvery = Math.max(1, this.window >> 2); // credit every quarter window: the pipe never runs dry
    let received = 0;
    const startedAt = crossThreadNowMs();
    const done = this.#receive<{ elapsedMs: number; latency: LatencyHistogram }>((message, resolve) => {
      const event = d.decode(message);
      const now = crossThreadNowMs();
      latency.recordMs(now - this.#stampView[received]!);
      if (received === 0) this.#noteSizes(message, event);
      if (expected !== null && received === 0) deepStrictEqual(event, expected); // a codec that loses a field is not a contender
      else if (event.type !== kind) throw new Error(`${codec}: got ${event.type}, expected ${kind}`); // also keeps decode observable
      received += 1;
      if (received === count) resolve({ elapsedMs: now - startedAt, latency });
      else if (mode === 'paced') this.#control({ cmd: 'next' });
      else if (received % creditEvery === 0) this.#control({ cmd: 'credit', received });
    });
    this.#control({ cmd: 'start', codec, kind, count, mode, window: this.window });
    return withDeadline(done, PHASE_DEADLINE_MS, systemClock, failWith(`${codec}/${kind}/${mode}: no answer within ${PHASE_DEADLINE_MS} ms`));
  }

  /** `count` resume snapshots of `turns` turns, one in flight; `verify` checks the first whole. */
  snapshotPhase(codec: SnapshotCodecName, turns: number, count: number, verify = false): Promise<SnapshotPhase> {
    const latency = new LatencyHistogram();
    const mainDecode = new LatencyHistogram();
    let bytes = 0;
    let received = 0;
    const done = this.#receive<SnapshotPhase>((message, resolve) => {
      const decodeStart = performance.now();
      const state = codec === 'structured-clone' ? message : decodeSnapshot(message as Uint8Array);
      const decodedAt = performance.now();
      latency.recordMs(crossThreadNowMs() - this.#stampView[received]!);
      if (codec !== 'structured-clone') mainDecode.recordMs(decodedAt - decodeStart);
      if (received === 0) {
        bytes = message instanceof Uint8Array ? message.byteLength : serialize(message).byteLength;
        if (verify) deepStrictEqual(state, sampleResumeState(turns));
      }
      received += 1;
      if (received === count) resolve({ latency, mainDecode, bytes });
      else this.#control({ cmd: 'next' });
    });
    this.#control({ cmd: 'snapshot', codec, turns, count });
    return withDeadline(done, PHASE_DEADLINE_MS, systemClock, failWith(`snapshot ${codec}/${turns}: no answer within ${PHASE_DEADLINE_MS} ms`));
  }

  async close(): Promise<void> {
    this.#channel.port1.close();
    await this.#worker.terminate();
  }

  /** Routes port messages to `handle` until it resolves; a throw in `handle` rejects. */
  #receive<T>(handle: (message: unknown, resolve: (value: T) => void) => void): Promise<T> {
    const port = this.#channel.port1;
    return new Promise<T>((resolve, reject) => {
      const finish = (value: T): void => {
        port.removeAllListeners('message');
        resolve(value);
      };
      port.on('message', (message: unknown) => {
        try {
          handle(message, finish);
        } catch (error) {
          port.removeAllListeners('message');
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
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

/**
 * What decoding a structured-clone message costs the receiving thread: Node deserializes a
 * port message with V8's ValueDeserializer before the handler runs, so it cannot be timed
 * there; `v8.deserialize` of the same bytes is that work, timed alone.
 */
export function structuredCloneDecodeEstimate(turns: number, count: number): LatencyHistogram {
  const bytes = serialize(sampleResumeState(turns));
  const histogram = new LatencyHistogram();
  for (let i = 0; i < count; i += 1) {
    const start = performance.now();
    (globalThis as { __sink?: unknown }).__sink = deserializeV8(bytes);
    histogram.recordMs(performance.now() - start);
  }
  return histogram;
}
