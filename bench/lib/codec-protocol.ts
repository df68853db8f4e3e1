// Every message between bench/codec.ts (main) and bench/codec-worker.ts, in one place
// (style habit 10), plus the clock both threads stamp with.
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
 */
export type CodecControl =
  | { cmd: 'start'; codec: CodecName; kind: EventKind; count: number; mode: 'burst' | 'paced'; window: number }
  | { cmd: 'credit'; received: number }
  | { cmd: 'next' };

/**
 * Milliseconds on the process-wide monotonic clock. `performance.now()` has a per-thread
 * origin, so a stamp taken in the worker could not be compared with one taken in main.
 */
export function crossThreadNowMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}
