// Which file holds msgpackr's native string extractor for the main thread's decoder
// (string-extractor.ts loads it with the pool). Apart from the loader, so that a host's start,
// which decides this, does not load the decoder with it.

/**
 * The extractor's file as the build's loader found it, named as a package path
 * (`@msgpackr-extract/msgpackr-extract-linux-x64/node.abi115.glibc.node`) so that it is found
 * wherever the install put that package; only the bundle has one.
 */
declare const THREAD_HOST_STRING_EXTRACTOR: string | undefined;

/** The file this build recorded; null where it recorded none. */
export function recordedStringExtractor(): string | null {
  return typeof THREAD_HOST_STRING_EXTRACTOR === 'string' ? THREAD_HOST_STRING_EXTRACTOR : null;
}

/** msgpackr's own switch, read as msgpackr reads it. */
export const nativeStringsDisabled = (env: NodeJS.ProcessEnv): boolean => env.MSGPACKR_NATIVE_ACCELERATION_DISABLED?.toLowerCase() === 'true';

/** The extractor the host is to load: the recorded one, unless msgpackr's switch turns it off. */
export const stringExtractorFor = (env: NodeJS.ProcessEnv, recorded: string | null = recordedStringExtractor()): string | null =>
  nativeStringsDisabled(env) ? null : recorded;
