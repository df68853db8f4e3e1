// The one payload that crosses threads packed with msgpackr: the state a cold resume reads
// from a rollout (every turn and item of the thread), sent worker → main once per resume.
//
// `npm run bench:codec` measures both ways (docs/BENCHMARKS.md, "Codecs"): for the small
// per-turn events, structured clone gives several times msgpackr's throughput, so events travel
// as plain objects; for a thread's history, msgpackr with records (each item shape's keys sent
// once) leaves the main thread, which only unpacks, a fraction of structured clone's decoding
// work, the larger the history the smaller. The bytes are copied to an exact-size buffer and
// transferred: Packr writes into a shared scratch buffer, and posting a view of it would clone
// all of it.
//
// The two halves load differently, because they run on different threads, so each has its
// own module and a bundle takes only the half it runs:
//  - Packing (here) runs in pool workers. msgpackr is required at the first snapshot, not with
//    the module: it was a visible part of every pool worker's start (the first thread/start of
//    a process waits for one; bench case `cold-start`), and a worker whose actors never resume
//    from disk never needs it.
//  - Unpacking (snapshot-decoder.ts) runs on the main thread.
import { createRequire } from 'node:module';
import type { Packr } from 'msgpackr';

/** Both halves must agree: records carry each item shape's keys once. */
export const SNAPSHOT_OPTIONS = { useRecords: true, moreTypes: false } as const;

let packr: Packr | null = null;

/** Packs `value` into a standalone buffer that can be transferred. */
export function encodeSnapshot(value: unknown): Uint8Array {
  if (packr === null) {
    const { Packr } = createRequire(import.meta.url)('msgpackr') as typeof import('msgpackr');
    packr = new Packr(SNAPSHOT_OPTIONS);
  }
  return new Uint8Array(packr.pack(value));
}
