// Why a parsed patch was not applied, in the reference's words (codex-rs/apply-patch/src/lib.rs:
// `ComputeReplacements` texts and the `anyhow` contexts its command prints on stderr).
import { constants } from 'node:os';

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

// Rust's `io::Error` Display for the errors a patch meets, "<strerror> (os error <n>)", so a
// message reads as the reference's does ("No such file or directory (os error 2)").
const STRERROR: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EEXIST: 'File exists',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
};

/** An error from `node:fs` described as Rust describes an `io::Error`. */
export function ioErrorText(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    // `read_to_string` on bytes that are not UTF-8; here the strict TextDecoder's refusal.
    if (error.code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return 'stream did not contain valid UTF-8';
    const text = STRERROR[error.code];
    const errno = (constants.errno as Readonly<Record<string, number>>)[error.code];
    if (text !== undefined && errno !== undefined) return `${text} (os error ${errno})`;
  }
  return error instanceof Error ? error.message : String(error);
}
