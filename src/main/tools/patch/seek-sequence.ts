// Finding a chunk's lines in a file, ported from codex-rs/apply-patch/src/seek_sequence.rs.
// Models copy context imperfectly, so the search relaxes in four passes, each over the whole
// range before the next is tried: exact, then trailing whitespace ignored, then leading and
// trailing whitespace ignored, then typographic punctuation (dashes, quotes, odd spaces)
// normalised to ASCII, the way `git apply` tolerates small byte differences in context.

/** How closely a match had to be sought, strictest first. */
export type SeekFuzz = 'exact' | 'trimEnd' | 'trim' | 'punctuation';

const FUZZ_PASSES: readonly { fuzz: SeekFuzz; normalise: (line: string) => string }[] = [
  { fuzz: 'exact', normalise: (line) => line },
  { fuzz: 'trimEnd', normalise: (line) => line.trimEnd() },
  { fuzz: 'trim', normalise: (line) => line.trim() },
  { fuzz: 'punctuation', normalise: (line) => normalisePunctuation(line.trim()) },
];

// The reference's table: dash-like code points, curly single and double quotes, and the
// non-breaking and fixed-width spaces, each mapped to its ASCII counterpart.
const PUNCTUATION: ReadonlyMap<string, string> = new Map([
  ...['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212'].map((c) => [c, '-'] as const),
  ...['\u2018', '\u2019', '\u201A', '\u201B'].map((c) => [c, "'"] as const),
  ...['\u201C', '\u201D', '\u201E', '\u201F'].map((c) => [c, '"'] as const),
  ...[
    '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200A',
    '\u202F', '\u205F', '\u3000',
  ].map((c) => [c, ' '] as const),
]);

function normalisePunctuation(line: string): string {
  let out = '';
  for (const char of line) out += PUNCTUATION.get(char) ?? char;
  return out;
}

/** Where `pattern` was found and how loosely. */
export interface SeekMatch {
  index: number;
  fuzz: SeekFuzz;
}

/**
 * Finds `pattern` in `lines` at or after `start`. With `eof`, the search first starts at the
 * last place the pattern fits, so a chunk meant for the end of the file lands there; like the
 * reference, it does not fall back to `start` when that fails. An empty pattern matches at
 * `start`; a pattern longer than the file never matches.
 */
export function seekSequence(lines: readonly string[], pattern: readonly string[], start: number, eof: boolean): SeekMatch | null {
  if (pattern.length === 0) return { index: start, fuzz: 'exact' };
  if (pattern.length > lines.length) return null;
  const searchStart = eof ? lines.length - pattern.length : start;
  const lastStart = lines.length - pattern.length;
  for (const { fuzz, normalise } of FUZZ_PASSES) {
    const wanted = pattern.map(normalise);
    for (let i = searchStart; i <= lastStart; i += 1) {
      if (wanted.every((line, offset) => normalise(lines[i + offset] ?? '') === line)) return { index: i, fuzz };
    }
  }
  return null;
}
