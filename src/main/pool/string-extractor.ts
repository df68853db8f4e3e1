// msgpackr's native string extractor for the main thread's decoder (snapshot-decoder.ts),
// without msgpackr's loader. The extractor decodes a slice of many short strings ~3x faster
// than msgpackr's JavaScript (64 KB slices: ~0.14 against ~0.4 ms), but finding its file
// through node-gyp-build-optional-packages and detect-libc took ~15 ms of the main thread,
// which is why the bundle went without it. The build runs that loader once and writes the file
// it finds into the bundle (scripts/bundle.mjs); the pool's start loads that file, in an
// event-loop turn of its own. Where it is not there (an install laid out otherwise than the one
// that built it), the same file is found as a package path from msgpackr-extract's own folder, as
// Node would find it for the package (~3 ms of resolving, so only then).
//
// The extractor is optional, as it is for msgpackr: no file recorded (a platform without a
// prebuilt one, the unbundled build), a file that is not there or does not load (another Node,
// an install without the optional package) or MSGPACKR_NATIVE_ACCELERATION_DISABLED=true
// (msgpackr's own switch, which the host reads: string-extractor-file.ts) leave the JavaScript
// decoder in place, with the same results. This module is part of the pool's runtime, loaded
// with it; which file to load is decided at start without loading the decoder
// (string-extractor-file.ts).
import { createRequire } from 'node:module';
import { type ExtractStrings, useStringExtractor } from '../../common/snapshot-decoder.js';
import type { StringExtractorFile } from './string-extractor-file.js';

/** How the main thread decodes strings after loadStringExtractor. */
export type StringDecoding = 'native' | 'javascript';

/** What the loader logs: the extractor in use or not found (info), one that did not load (warn). */
export type ExtractorLog = (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void;

const JAVASCRIPT = 'the main thread decodes strings in JavaScript';

/**
 * Loads the extractor and hands it to the decoder. Never throws: strings are then decoded in
 * JavaScript, and why is logged. Only the bundle's decoder takes an extractor; elsewhere this
 * answers 'javascript' without a log.
 */
export function loadStringExtractor(extractor: StringExtractorFile | null, log: ExtractorLog): StringDecoding {
  if (extractor === null) return 'javascript';
  let loaded: { extractStrings?: unknown };
  try {
    loaded = requireExtractor(extractor);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    log(missing ? 'info' : 'warn', `msgpackr's native string extractor ${missing ? 'is not installed' : 'did not load'}; ${JAVASCRIPT}`, { ...extractor, error: String(error) });
    return 'javascript';
  }
  if (typeof loaded.extractStrings !== 'function') {
    log('warn', `msgpackr's native string extractor has no extractStrings; ${JAVASCRIPT}`, { ...extractor });
    return 'javascript';
  }
  if (!useStringExtractor(loaded.extractStrings as ExtractStrings)) return 'javascript';
  log('info', "the main thread decodes strings with msgpackr's native extractor", { ...extractor });
  return 'native';
}

// The recorded file, or, where it is not there, its package path as msgpackr-extract finds it.
function requireExtractor({ file, packagePath }: StringExtractorFile): { extractStrings?: unknown } {
  const require = createRequire(import.meta.url);
  try {
    return require(file) as { extractStrings?: unknown };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
  }
  return require(msgpackrExtractRequire().resolve(packagePath)) as { extractStrings?: unknown };
}

/**
 * A require from msgpackr-extract's folder, itself found from msgpackr's: the prebuilt
 * extractors are its optional dependencies, wherever the install hoisted them. The build
 * (scripts/bundle.mjs) runs the package's loader from here too.
 */
export function msgpackrExtractRequire(): NodeJS.Require {
  const fromMsgpackr = createRequire(createRequire(import.meta.url).resolve('msgpackr'));
  return createRequire(fromMsgpackr.resolve('msgpackr-extract/package.json'));
}
