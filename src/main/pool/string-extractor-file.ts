// Which file holds msgpackr's native string extractor for the main thread's decoder
// (string-extractor.ts loads it with the pool). Apart from the loader, so that a host's start,
// which decides this, does not load the decoder with it.
import { distPath } from '../build-layout.js';

/** The extractor's file, from dist/, as the build's loader found it; only the bundle has one. */
declare const THREAD_HOST_STRING_EXTRACTOR_FILE: string | undefined;
/**
 * The same file as a package path (`@msgpackr-extract/msgpackr-extract-linux-x64/node.abi115.glibc.node`),
 * found from msgpackr-extract's folder wherever an install put that package.
 */
declare const THREAD_HOST_STRING_EXTRACTOR_PACKAGE_PATH: string | undefined;

/** Where to find the extractor: `file` first, `packagePath` where it is not there. */
export interface StringExtractorFile {
  file: string;
  packagePath: string;
}

/** The file this build recorded; null where it recorded none. */
export function recordedStringExtractor(): StringExtractorFile | null {
  if (typeof THREAD_HOST_STRING_EXTRACTOR_FILE !== 'string' || typeof THREAD_HOST_STRING_EXTRACTOR_PACKAGE_PATH !== 'string') return null;
  return { file: distPath(THREAD_HOST_STRING_EXTRACTOR_FILE), packagePath: THREAD_HOST_STRING_EXTRACTOR_PACKAGE_PATH };
}

/** msgpackr's own switch, read as msgpackr reads it. */
export const nativeStringsDisabled = (env: NodeJS.ProcessEnv): boolean => env.MSGPACKR_NATIVE_ACCELERATION_DISABLED?.toLowerCase() === 'true';

/** The extractor the host is to load: the recorded one, unless msgpackr's switch turns it off. */
export const stringExtractorFor = (env: NodeJS.ProcessEnv, recorded: StringExtractorFile | null = recordedStringExtractor()): StringExtractorFile | null =>
  nativeStringsDisabled(env) ? null : recorded;
