// The main thread's half of the snapshot codec (snapshot-codec.ts): it only unpacks, and only
// needs msgpackr's unpack module, which the build inlines into the main bundle
// (scripts/bundle.mjs), compiled from V8's code cache with the rest. Required from the package,
// msgpackr was ~20 ms of the main thread at the first cold resume of every process, two thirds
// of it finding and loading its optional native string extractor (node-gyp-build and
// detect-libc): every other request waited for it. Without the extractor, a slice of many short
// strings decodes ~3x slower and one of longer texts ~1.2x (64 KB slices: ~0.4 against ~0.14 ms,
// and ~0.07 against ~0.06 ms), one slice per event-loop turn after the resume is answered, so
// the pool's start hands it the extractor's file directly (src/main/pool/string-extractor.ts).
import * as unpackModule from 'msgpackr/unpack';
import type { HistorySlice } from './packed-history.js';
import { SNAPSHOT_OPTIONS } from './snapshot-codec.js';

/** msgpackr-extract's extractStrings: the strings of a source from `start` to `end`, or a failure msgpackr reads. */
export type ExtractStrings = (start: number, end: number, buffer: ArrayBufferLike) => unknown;

// The unpack module takes the extractor through setExtractor, which its typings leave out.
// Only the module the bundle inlines (unpack.js) exports it; in the unbundled build (tsc's
// output, and the sources under test) `msgpackr/unpack` is an entry of the package that does
// not, and strings are decoded in JavaScript there.
const unpack = unpackModule as typeof unpackModule & { setExtractor?: (extract: ExtractStrings) => void };

/**
 * Decodes strings with `extractStrings` from the next unpack on. False where this build's
 * unpack module takes no extractor. Safe between two unpacks: each reads the module's string
 * readers afresh.
 */
export function useStringExtractor(extractStrings: ExtractStrings): boolean {
  if (typeof unpack.setExtractor !== 'function') return false;
  unpack.setExtractor(extractStrings);
  return true;
}

let unpackr: unpackModule.Unpackr | null = null;

export function decodeSnapshot<T>(bytes: Uint8Array): T {
  unpackr ??= new unpack.Unpackr(SNAPSHOT_OPTIONS);
  return unpackr.unpack(bytes) as T;
}

/** Decodes one slice of a cold resume's packed history (packed-history.ts). */
export function unpackSlice(bytes: Uint8Array): HistorySlice {
  return decodeSnapshot<HistorySlice>(bytes);
}
