// The main thread's half of the snapshot codec (snapshot-codec.ts): it only unpacks, so it
// imports msgpackr's `unpack` entry as an ES module. Through the package's exports (node,
// import) that is its JavaScript module, which Node loads for tsc's output and esbuild inlines
// into the main bundle (scripts/bundle.mjs): no native code and nothing to find at run time.
// The whole package, required as the pool workers require it to pack, also looks for its
// optional native string extractor (msgpackr-extract), which would be a stretch of the main
// thread's time at the first cold resume, while every other request waited, to decode faster a
// history that is already decoded one slice per event-loop iteration after the resume is answered.
import { Unpackr } from 'msgpackr/unpack';
import type { HistorySlice } from './packed-history.js';
import { SNAPSHOT_OPTIONS } from './snapshot-codec.js';

let unpackr: Unpackr | null = null;

export function decodeSnapshot<T>(bytes: Uint8Array): T {
  unpackr ??= new Unpackr(SNAPSHOT_OPTIONS);
  return unpackr.unpack(bytes) as T;
}

/** Decodes one slice of a cold resume's packed history (packed-history.ts). */
export function unpackSlice(bytes: Uint8Array): HistorySlice {
  return decodeSnapshot<HistorySlice>(bytes);
}
