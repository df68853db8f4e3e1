// The main thread's half of the snapshot codec (snapshot-codec.ts): it only unpacks, and only
// needs msgpackr's unpack module, which the build inlines into the main bundle
// (scripts/bundle.mjs), compiled from V8's code cache with the rest. Required from the package,
// msgpackr was ~20 ms of the main thread at the first cold resume of every process, two thirds
// of it finding and loading its optional native string extractor (node-gyp-build and
// detect-libc): every other request waited for it. Without the extractor, a slice of many short
// strings decodes ~3x slower and one of longer texts ~1.2x (64 KB slices: ~0.4 against ~0.14 ms,
// and ~0.07 against ~0.06 ms), one slice per event-loop turn after the resume is answered.
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
