// The apply_patch grammar, ported from codex-rs/apply-patch/src/parser.rs (openai/codex), whose
// Lark form is:
//
//   start: begin_patch hunk+ end_patch
//   begin_patch: "*** Begin Patch" LF
//   end_patch: "*** End Patch" LF?
//   hunk: add_hunk | delete_hunk | update_hunk
//   add_hunk: "*** Add File: " filename LF add_line+
//   delete_hunk: "*** Delete File: " filename LF
//   update_hunk: "*** Update File: " filename LF change_move? change?
//   change_move: "*** Move to: " filename LF
//   change: (change_context | change_line)+ eof_line?
//   change_context: ("@@" | "@@ " /(.+)/) LF
//   change_line: ("+" | "-" | " ") /(.+)/ LF
//   eof_line: "*** End of File" LF
//
// Like the reference, the parser is more lenient than the grammar: the text is trimmed, the
// begin/end markers and hunk headers may carry surrounding whitespace, blank lines between
// chunks are skipped, the first chunk may omit its `@@`, and the whole patch may arrive wrapped
// in a heredoc (`<<'EOF'` … `EOF`), as gpt-4.1 sends it through exec-style tools. The
// reference never parses strictly outside its own tests; `strict` is kept for the same tests.
// Every error text below is the reference's, verbatim.
import { PatchParseError } from './patch-parse-error.js';
import type { Hunk, ParsedPatch, UpdateFileChunk } from './patch-types.js';

const BEGIN_PATCH_MARKER = '*** Begin Patch';
const END_PATCH_MARKER = '*** End Patch';
const ADD_FILE_MARKER = '*** Add File: ';
const DELETE_FILE_MARKER = '*** Delete File: ';
const UPDATE_FILE_MARKER = '*** Update File: ';
const MOVE_TO_MARKER = '*** Move to: ';
const EOF_MARKER = '*** End of File';
const CHANGE_CONTEXT_MARKER = '@@ ';
const EMPTY_CHANGE_CONTEXT_MARKER = '@@';
const HEREDOC_OPENERS: readonly string[] = ['<<EOF', "<<'EOF'", '<<"EOF"'];
const NO_LINES = 'Update hunk does not contain any lines';

/** `lenient` is what the reference always uses; `strict` refuses the heredoc wrapper. */
export type PatchParseMode = 'lenient' | 'strict';

/** Parses a patch body; throws `PatchParseError` with the reference's message when it is malformed. */
export function parsePatch(text: string, mode: PatchParseMode = 'lenient'): ParsedPatch {
  const lines = splitLines(text.trim());
  const patchLines = mode === 'strict' ? checkBoundariesStrict(lines) : checkBoundariesLenient(lines);
  const hunks: Hunk[] = [];
  let remaining = patchLines.slice(1, -1);
  // Line 1 is `*** Begin Patch`; numbers are 1-based, as in the reference's messages.
  let lineNumber = 2;
  while (remaining.length > 0) {
    const { hunk, consumed } = parseOneHunk(remaining, lineNumber);
    hunks.push(hunk);
    lineNumber += consumed;
    remaining = remaining.slice(consumed);
  }
  return { hunks, patch: patchLines.join('\n') };
}

// Rust's `str::lines`: split on LF, drop one CR before it, and no empty line after a final LF.
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function checkBoundariesStrict(lines: string[]): string[] {
  const first = lines[0]?.trim();
  const last = lines[lines.length - 1]?.trim();
  if (first === BEGIN_PATCH_MARKER && last === END_PATCH_MARKER && lines.length >= 2) return lines;
  if (first !== undefined && first !== BEGIN_PATCH_MARKER) {
    throw PatchParseError.invalidPatch("The first line of the patch must be '*** Begin Patch'");
  }
  throw PatchParseError.invalidPatch("The last line of the patch must be '*** End Patch'");
}

// The heredoc markers take two lines and a patch at least two more, hence the four.
function checkBoundariesLenient(lines: string[]): string[] {
  try {
    return checkBoundariesStrict(lines);
  } catch (strictError) {
    const first = lines[0];
    const last = lines[lines.length - 1];
    if (lines.length >= 4 && first !== undefined && HEREDOC_OPENERS.includes(first) && last?.endsWith('EOF')) {
      return checkBoundariesStrict(lines.slice(1, -1));
    }
    throw strictError;
  }
}

function parseOneHunk(lines: string[], lineNumber: number): { hunk: Hunk; consumed: number } {
  // Headers tolerate padding; the lines under them are taken as written.
  const header = (lines[0] ?? '').trim();
  if (header.startsWith(ADD_FILE_MARKER)) {
    let contents = '';
    let consumed = 1;
    for (const line of lines.slice(1)) {
      if (!line.startsWith('+')) break;
      contents += `${line.slice(1)}\n`;
      consumed += 1;
    }
    return { hunk: { type: 'add', path: header.slice(ADD_FILE_MARKER.length), contents }, consumed };
  }
  if (header.startsWith(DELETE_FILE_MARKER)) {
    return { hunk: { type: 'delete', path: header.slice(DELETE_FILE_MARKER.length) }, consumed: 1 };
  }
  if (header.startsWith(UPDATE_FILE_MARKER)) {
    return parseUpdateHunk(lines, lineNumber, header.slice(UPDATE_FILE_MARKER.length));
  }
  throw PatchParseError.invalidHunk(
    `'${header}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`,
    lineNumber,
  );
}

function parseUpdateHunk(lines: string[], lineNumber: number, path: string): { hunk: Hunk; consumed: number } {
  let remaining = lines.slice(1);
  let consumed = 1;
  const moveLine = remaining[0];
  const movePath = moveLine?.startsWith(MOVE_TO_MARKER) ? moveLine.slice(MOVE_TO_MARKER.length) : null;
  if (movePath !== null) {
    remaining = remaining.slice(1);
    consumed += 1;
  }
  const chunks: UpdateFileChunk[] = [];
  while (remaining.length > 0) {
    const line = remaining[0] ?? '';
    if (line.trim() === '') {
      consumed += 1;
      remaining = remaining.slice(1);
      continue;
    }
    // The next hunk header (or `*** End of File` left over) ends this hunk.
    if (line.startsWith('*')) break;
    const parsed = parseUpdateFileChunk(remaining, lineNumber + consumed, chunks.length === 0);
    chunks.push(parsed.chunk);
    consumed += parsed.consumed;
    remaining = remaining.slice(parsed.consumed);
  }
  if (chunks.length === 0) {
    throw PatchParseError.invalidHunk(`Update file hunk for path '${path}' is empty`, lineNumber);
  }
  return { hunk: { type: 'update', path, movePath, chunks }, consumed };
}

/** One `@@` chunk; exported for the reference's own chunk-level tests. */
export function parseUpdateFileChunk(
  lines: string[],
  lineNumber: number,
  allowMissingContext: boolean,
): { chunk: UpdateFileChunk; consumed: number } {
  const first = lines[0];
  if (first === undefined) throw PatchParseError.invalidHunk(NO_LINES, lineNumber);
  let changeContext: string | null = null;
  let start = 1;
  if (first === EMPTY_CHANGE_CONTEXT_MARKER) {
    changeContext = null;
  } else if (first.startsWith(CHANGE_CONTEXT_MARKER)) {
    changeContext = first.slice(CHANGE_CONTEXT_MARKER.length);
  } else if (allowMissingContext) {
    start = 0;
  } else {
    throw PatchParseError.invalidHunk(
      `Expected update hunk to start with a @@ context marker, got: '${first}'`,
      lineNumber,
    );
  }
  // The reference reports the line after the chunk's first one, whether or not that was `@@`.
  if (start >= lines.length) throw PatchParseError.invalidHunk(NO_LINES, lineNumber + 1);
  const chunk: UpdateFileChunk = { changeContext, oldLines: [], newLines: [], isEndOfFile: false };
  let parsed = 0;
  for (const line of lines.slice(start)) {
    if (line === EOF_MARKER) {
      if (parsed === 0) throw PatchParseError.invalidHunk(NO_LINES, lineNumber + 1);
      chunk.isEndOfFile = true;
      parsed += 1;
      break;
    }
    const marker = line[0];
    const rest = line.slice(1);
    if (marker === undefined) {
      // A bare empty line is an empty context line.
      chunk.oldLines.push('');
      chunk.newLines.push('');
    } else if (marker === ' ') {
      chunk.oldLines.push(rest);
      chunk.newLines.push(rest);
    } else if (marker === '+') {
      chunk.newLines.push(rest);
    } else if (marker === '-') {
      chunk.oldLines.push(rest);
    } else {
      if (parsed === 0) {
        throw PatchParseError.invalidHunk(
          `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`,
          lineNumber + 1,
        );
      }
      // Anything else starts the next chunk.
      break;
    }
    parsed += 1;
  }
  return { chunk, consumed: parsed + start };
}
