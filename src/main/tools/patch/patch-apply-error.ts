// Why a parsed patch was not applied, in the reference's words (codex-rs/apply-patch/src/lib.rs:
// `ComputeReplacements` texts and the `anyhow` contexts its command prints on stderr).
import { ioErrorText as rustIoErrorText } from '../../../common/io-error-text.js';

/** A patch that could not be applied; `message` is the reference's text. */
export class PatchApplyError extends Error {
  override readonly name = 'PatchApplyError';

  constructor(
    message: string,
    /**
     * Files already changed on disk when the failure came in the middle of the writes (see
     * patch-writer.ts); empty when nothing was changed, which is every failure before them.
     */
    readonly changedPaths: readonly string[] = [],
  ) {
    super(message);
  }
}

/** An error from `node:fs` described as Rust describes an `io::Error`. */
export function ioErrorText(error: unknown): string {
  // `read_to_string` on bytes that are not UTF-8; here the strict TextDecoder's refusal.
  if (error instanceof Error && 'code' in error && error.code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return 'stream did not contain valid UTF-8';
  return rustIoErrorText(error);
}
