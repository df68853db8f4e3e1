// The two parse failures of the reference (`ParseError` in codex-rs/apply-patch/src/parser.rs).
// `message` is the reference's Display text ("invalid patch: …", "invalid hunk at line N, …"),
// which is what a model sees when verification fails; `report()` is what its apply_patch
// command prints on stderr (codex-rs/apply-patch/src/lib.rs, `apply_patch`).

/** Which of the reference's two `ParseError` variants this is. */
export type PatchParseErrorKind = 'invalidPatch' | 'invalidHunk';

/** A patch that does not follow the grammar; nothing was read or written. */
export class PatchParseError extends Error {
  override readonly name = 'PatchParseError';

  private constructor(
    readonly kind: PatchParseErrorKind,
    /** The reason without the variant's prefix, as the reference stores it. */
    readonly detail: string,
    /** 1-based line of the hunk at fault (`invalidHunk` only). */
    readonly lineNumber: number | null,
  ) {
    super(kind === 'invalidPatch' ? `invalid patch: ${detail}` : `invalid hunk at line ${lineNumber}, ${detail}`);
  }

  static invalidPatch(detail: string): PatchParseError {
    return new PatchParseError('invalidPatch', detail, null);
  }

  static invalidHunk(detail: string, lineNumber: number): PatchParseError {
    return new PatchParseError('invalidHunk', detail, lineNumber);
  }

  /** The line the reference's command writes to stderr for this error. */
  report(): string {
    return this.kind === 'invalidPatch'
      ? `Invalid patch: ${this.detail}`
      : `Invalid patch hunk on line ${this.lineNumber}: ${this.detail}`;
  }
}
