// Every message between bench/codec.ts (main) and bench/codec-worker.ts, in one place
// (style habit 10), plus the clock both threads stamp with and the snapshot codecs.
import type { MessagePort } from 'node:worker_threads';
import type { EventKind } from './actor-event-samples.js';
import type { CodecName } from './event-codecs.js';

/** Handed to the worker at start. Events go on `eventPort`; `stamps[i]` is event i's send time. */
export interface CodecWorkerData {
  eventPort: MessagePort;
  stamps: SharedArrayBuffer;
}

/**
 * main → worker, on the worker's parentPort.
 *   burst: post `count` events as fast as the credit window allows; main returns credit.
 *   paced: post one event per `next`, i.e. one in flight: unloaded one-way latency.
 *   snapshot: post one resume state of `turns` turns per `next`, `count` in all.
 */
export type CodecControl =
  | { cmd: 'start'; codec: CodecName; kind: EventKind; count: number; mode: 'burst' | 'paced'; window: number }
  | { cmd: 'credit'; received: number }
  | { cmd: 'snapshot'; codec: SnapshotCodecName; turns: number; count: number }
  | { cmd: 'next' };

/**
 * How a cold resume's ActorResumeState crosses worker → main: as a plain object (structured
 * clone), or packed by src/common/snapshot-codec.ts into a buffer that is transferred.
 */
export const SNAPSHOT_CODECS = ['structured-clone', 'msgpackr-snapshot'] as const;
export type SnapshotCodecName = (typeof SNAPSHOT_CODECS)[number];

/**
 * Milliseconds on the process-wide monotonic clock. `performance.now()` has a per-thread
 * origin, so a stamp taken in the worker could not be compared with one taken in main.
 */
export function crossThreadNowMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}
