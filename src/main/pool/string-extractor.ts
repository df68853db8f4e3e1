// msgpackr's native string extractor for the main thread's decoder (snapshot-decoder.ts),
// without msgpackr's loader. The extractor decodes a slice of many short strings ~3x faster
// than msgpackr's JavaScript (64 KB slices: ~0.14 against ~0.4 ms), but finding its file
// through node-gyp-build-optional-packages and detect-libc took ~15 ms of the main thread,
// which is why the bundle went without it. The build runs that loader once and writes the file
// it finds into the bundle (scripts/bundle.mjs); the pool's start loads that file directly, in
// an event-loop turn of its own, where the workers' own msgpackr has usually loaded it already.
//
// The extractor is optional, as it is for msgpackr: no file recorded (a platform without a
// prebuilt one, the unbundled build), a file that does not load (another Node, a moved
// install) or MSGPACKR_NATIVE_ACCELERATION_DISABLED=true (msgpackr's own switch, which the
// host reads: string-extractor-file.ts) leave the JavaScript decoder in place, with the same
// results. This module is part of the pool's runtime, loaded with it; which file to load is
// decided at start without loading the decoder (string-extractor-file.ts).
import { createRequire } from 'node:module';
import { type ExtractStrings, useStringExtractor } from '../../common/snapshot-decoder.js';

/** How the main thread decodes strings after loadStringExtractor. */
export type StringDecoding = 'native' | 'javascript';

/** What the loader logs: a file that did not load (warn), the extractor in use (info). */
export type ExtractorLog = (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;

/**
 * Loads the extractor at `file` and hands it to the decoder. Never throws: a file that does not
 * load is logged, and strings are then decoded in JavaScript.
 */
export function loadStringExtractor(file: string | null, log: ExtractorLog): StringDecoding {
  if (file === null) return 'javascript';
  let extractStrings: unknown;
  try {
    extractStrings = (createRequire(import.meta.url)(file) as { extractStrings?: unknown }).extractStrings;
  } catch (error) {
    log('warn', "msgpackr's native string extractor did not load; the main thread decodes strings in JavaScript", { file, error: String(error) });
    return 'javascript';
  }
  if (typeof extractStrings !== 'function') {
    log('warn', "msgpackr's native string extractor has no extractStrings; the main thread decodes strings in JavaScript", { file });
    return 'javascript';
  }
  if (!useStringExtractor(extractStrings as ExtractStrings)) return 'javascript';
  log('info', "the main thread decodes strings with msgpackr's native extractor", { file });
  return 'native';
}
