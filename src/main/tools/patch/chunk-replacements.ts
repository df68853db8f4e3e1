// An update's new contents from its chunks, ported from `compute_replacements` and
// `apply_replacements` in codex-rs/apply-patch/src/lib.rs. Pure: the caller reads the file.
import { FileText, type Replacement } from './file-text.js';
import { PatchApplyError } from './patch-apply-error.js';
import type { UpdateFileChunk } from './patch-types.js';
import { seekSequence } from './seek-sequence.js';

/**
 * Applies `chunks` to `original` in order. `displayPath` names the file in the reference's
 * failure texts. Throws `PatchApplyError` when a context line or a chunk's lines are not found.
 */
export function deriveNewContents(original: string, chunks: readonly UpdateFileChunk[], displayPath: string): string {
  const text = FileText.parse(original);
  const replacements = computeReplacements(text.lineTexts(), chunks, displayPath);
  text.applyReplacements(replacements);
  return text.contents();
}

function computeReplacements(lines: string[], chunks: readonly UpdateFileChunk[], displayPath: string): Replacement[] {
  const replacements: Replacement[] = [];
  let lineIndex = 0;
  for (const chunk of chunks) {
    if (chunk.changeContext !== null) {
      const context = seekSequence(lines, [chunk.changeContext], lineIndex, false);
      if (context === null) {
        throw new PatchApplyError(`Failed to find context '${chunk.changeContext}' in ${displayPath}`);
      }
      lineIndex = context.index + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A pure addition goes at the end of the file (before a final empty line, if any).
      const insertAt = lines.length > 0 && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
      replacements.push({ start: insertAt, oldLen: 0, oldLines: [], newLines: chunk.newLines });
      continue;
    }
    let pattern: readonly string[] = chunk.oldLines;
    let newLines: readonly string[] = chunk.newLines;
    let found = seekSequence(lines, pattern, lineIndex, chunk.isEndOfFile);
    // A trailing empty old line stands for the file's final newline, which the line list does
    // not hold; retry without it (and without the matching empty new line).
    if (found === null && pattern[pattern.length - 1] === '') {
      pattern = pattern.slice(0, -1);
      if (newLines[newLines.length - 1] === '') newLines = newLines.slice(0, -1);
      found = seekSequence(lines, pattern, lineIndex, chunk.isEndOfFile);
    }
    if (found === null) {
      throw new PatchApplyError(`Failed to find expected lines in ${displayPath}:\n${chunk.oldLines.join('\n')}`);
    }
    replacements.push({ start: found.index, oldLen: pattern.length, oldLines: pattern, newLines });
    lineIndex = found.index + pattern.length;
  }
  // Chunks are matched in order, but a pure addition sits at the end whatever its place.
  return replacements.sort((a, b) => a.start - b.start);
}
