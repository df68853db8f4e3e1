// The parsed form of an apply_patch body, shaped like the reference's `Hunk` and
// `UpdateFileChunk` (codex-rs/apply-patch/src/parser.rs) so the two can be compared line by line.
// Paths stay exactly as the patch wrote them; the applier resolves them against a cwd.

/** One change to the contents of an updated file: `oldLines` become `newLines`. */
export interface UpdateFileChunk {
  /** The `@@ <text>` line that narrows where the chunk applies (usually a definition), if any. */
  changeContext: string | null;
  /** Lines that must be found in the file, after `changeContext`, in order. */
  oldLines: string[];
  newLines: string[];
  /** `*** End of File` followed the chunk: `oldLines` should be matched at the end of the file. */
  isEndOfFile: boolean;
}

/** One file operation of a patch. */
export type Hunk =
  | { type: 'add'; path: string; contents: string }
  | { type: 'delete'; path: string }
  | { type: 'update'; path: string; movePath: string | null; chunks: UpdateFileChunk[] };

/** A parsed patch: its hunks and the patch text without any heredoc wrapper. */
export interface ParsedPatch {
  hunks: Hunk[];
  /** The patch lines from `*** Begin Patch` to `*** End Patch`, joined with "\n". */
  patch: string;
}
