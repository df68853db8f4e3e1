// The one payload that crosses threads packed with msgpackr: the state a cold resume reads
// from a rollout (every turn and item of the thread), sent worker → main once per resume.
//
// bench/codec.ts measured both ways on this machine: for the small per-turn events,
// structured clone is 2-3x faster than msgpackr, so events travel as plain objects; for a
// thread's history, msgpackr with records (each item shape's keys sent once) is 1.3x faster
// at 1,000 turns and 1.9x at 5,000, and most of the remaining cost moves off the main
// thread, which only unpacks. The bytes are copied to an exact-size buffer and transferred:
// Packr writes into a shared scratch buffer, and posting a view of it would clone all of it.
import { Packr } from 'msgpackr';

const packr = new Packr({ useRecords: true, moreTypes: false });

/** Packs `value` into a standalone buffer that can be transferred. */
export function encodeSnapshot(value: unknown): Uint8Array {
  return new Uint8Array(packr.pack(value));
}

export function decodeSnapshot<T>(bytes: Uint8Array): T {
  return packr.unpack(bytes) as T;
}
