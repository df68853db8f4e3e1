// A file's text as lines that remember their own line ending, after
// codex-rs/apply-patch/src/text_file.rs: an update keeps CRLF files CRLF and leaves the endings
// of lines it does not touch alone, even in a file that mixes them. Lines the patch adds take
// the file's preferred ending, the ending of its first line (rustfmt's and Ruff's rule), and
// every line ends up terminated, since updates have always added a final newline.

type LineEnding = '\n' | '\r\n';

interface SourceLine {
  text: string;
  ending: LineEnding | null;
}

/** `oldLen` lines at `start` become `newLines`; `oldLines` is what the chunk expected there. */
export interface Replacement {
  start: number;
  oldLen: number;
  oldLines: readonly string[];
  newLines: readonly string[];
}

// Past this many old×new line pairs in one replacement, context lines are not matched back to
// the source lines they came from (the table below is quadratic) and take the preferred ending.
const ALIGN_CELL_LIMIT = 250_000;

/** The lines of one file being updated. */
export class FileText {
  private constructor(
    private lines: SourceLine[],
    private readonly preferred: LineEnding,
  ) {}

  static parse(contents: string): FileText {
    const lines: SourceLine[] = [];
    let preferred: LineEnding | null = null;
    let lineStart = 0;
    for (let newline = contents.indexOf('\n'); newline !== -1; newline = contents.indexOf('\n', lineStart)) {
      const raw = contents.slice(lineStart, newline);
      const crlf = raw.endsWith('\r');
      const ending: LineEnding = crlf ? '\r\n' : '\n';
      preferred ??= ending;
      lines.push({ text: crlf ? raw.slice(0, -1) : raw, ending });
      lineStart = newline + 1;
    }
    if (lineStart < contents.length) lines.push({ text: contents.slice(lineStart), ending: null });
    return new FileText(lines, preferred ?? '\n');
  }

  /** The lines without their endings, which is what chunks are matched against. */
  lineTexts(): string[] {
    return this.lines.map((line) => line.text);
  }

  /** Applies replacements sorted by `start` and not overlapping. */
  applyReplacements(replacements: readonly Replacement[]): void {
    const next: SourceLine[] = [];
    let sourceIndex = 0;
    for (const replacement of replacements) {
      next.push(...this.lines.slice(sourceIndex, replacement.start));
      const old = this.lines.slice(replacement.start, replacement.start + replacement.oldLen);
      const kept = alignContext(replacement.oldLines.slice(0, old.length), replacement.newLines);
      replacement.newLines.forEach((text, j) => {
        const source = kept[j] === undefined ? undefined : old[kept[j]];
        next.push({ text, ending: source?.ending ?? this.preferred });
      });
      sourceIndex = replacement.start + replacement.oldLen;
    }
    next.push(...this.lines.slice(sourceIndex));
    for (const line of next) line.ending ??= this.preferred;
    this.lines = next;
  }

  contents(): string {
    return this.lines.map((line) => line.text + (line.ending ?? '')).join('');
  }
}

// For each new line that is a context line, the index of the old line it stands for: a longest
// common subsequence, preferring to drop old lines first, as a patch lists `-` before ` `.
function alignContext(oldLines: readonly string[], newLines: readonly string[]): (number | undefined)[] {
  const kept: (number | undefined)[] = new Array(newLines.length).fill(undefined);
  const rows = oldLines.length;
  const cols = newLines.length;
  if (rows === 0 || cols === 0 || rows * cols > ALIGN_CELL_LIMIT) return kept;
  // suffix[i][j]: the common subsequence length of oldLines[i..] and newLines[j..].
  const width = cols + 1;
  const suffix = new Uint32Array((rows + 1) * width);
  for (let i = rows - 1; i >= 0; i -= 1) {
    for (let j = cols - 1; j >= 0; j -= 1) {
      suffix[i * width + j] =
        oldLines[i] === newLines[j]
          ? suffix[(i + 1) * width + j + 1]! + 1
          : Math.max(suffix[(i + 1) * width + j]!, suffix[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < rows && j < cols) {
    const here = suffix[i * width + j]!;
    if (suffix[(i + 1) * width + j] === here) i += 1;
    else if (suffix[i * width + j + 1] === here) j += 1;
    else {
      kept[j] = i;
      i += 1;
      j += 1;
    }
  }
  return kept;
}
