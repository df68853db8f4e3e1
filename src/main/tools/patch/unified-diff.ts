// The diff text of an updated file, in the form the reference puts in `fileChange` items: the
// reference runs `similar::TextDiff::from_lines(old, new).unified_diff().context_radius(1)`
// (codex-rs/apply-patch/src/lib.rs), which prints hunks only, with no `---`/`+++` header, GNU
// ranges ("-3" for one line, "-3,0" for none) and a "\ No newline at end of file" hint.
//
// `similar` diffs with Myers' algorithm; this uses a longest common subsequence on what lies
// between the common prefix and suffix. The two agree wherever the smallest edit is unique,
// which covers a patch's usual edits; where several are equally small they may pick differently.

/** How many unchanged lines surround each change, as the reference asks of `similar`. */
export const DIFF_CONTEXT_RADIUS = 1;

// Past this many old×new line pairs between the common prefix and suffix, the middle is shown
// as one replacement rather than paying for the quadratic table.
const LCS_CELL_LIMIT = 4_000_000;

type DiffOp =
  | { tag: 'equal'; oldIndex: number; newIndex: number; len: number }
  | { tag: 'change'; oldIndex: number; oldLen: number; newIndex: number; newLen: number };

/** The unified diff from `oldText` to `newText`, or "" when they are the same. */
export function unifiedDiff(oldText: string, newText: string, radius: number = DIFF_CONTEXT_RADIUS): string {
  const oldLines = splitKeepingEndings(oldText);
  const newLines = splitKeepingEndings(newText);
  return groupOps(diffOps(oldLines, newLines), radius)
    .map((group) => formatHunk(group, oldLines, newLines))
    .join('');
}

// Lines with their terminators, as `similar` tokenises: "a\n" and "a" are different lines.
function splitKeepingEndings(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function diffOps(a: string[], b: string[]): DiffOp[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) {
    suffix += 1;
  }
  const pairs = middlePairs(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix));
  const matched: [number, number][] = [];
  for (let k = 0; k < prefix; k += 1) matched.push([k, k]);
  for (const [i, j] of pairs) matched.push([prefix + i, prefix + j]);
  for (let k = suffix; k > 0; k -= 1) matched.push([a.length - k, b.length - k]);
  return opsFromMatches(matched, a.length, b.length);
}

// Matched (old, new) index pairs of a longest common subsequence, removals before additions.
function middlePairs(a: string[], b: string[]): [number, number][] {
  if (a.length === 0 || b.length === 0 || a.length * b.length > LCS_CELL_LIMIT) return [];
  const width = b.length + 1;
  const suffix = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      suffix[i * width + j] =
        a[i] === b[j] ? suffix[(i + 1) * width + j + 1]! + 1 : Math.max(suffix[(i + 1) * width + j]!, suffix[i * width + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const here = suffix[i * width + j]!;
    if (suffix[(i + 1) * width + j] === here) i += 1;
    else if (suffix[i * width + j + 1] === here) j += 1;
    else pairs.push([i++, j++]);
  }
  return pairs;
}

function opsFromMatches(matched: [number, number][], oldLen: number, newLen: number): DiffOp[] {
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  const pushChange = (toI: number, toJ: number): void => {
    if (toI > i || toJ > j) ops.push({ tag: 'change', oldIndex: i, oldLen: toI - i, newIndex: j, newLen: toJ - j });
  };
  for (const [mi, mj] of [...matched, [oldLen, newLen] as [number, number]]) {
    pushChange(mi, mj);
    i = mi;
    j = mj;
    if (mi === oldLen && mj === newLen) break;
    const last = ops[ops.length - 1];
    if (last?.tag === 'equal' && last.oldIndex + last.len === mi && last.newIndex + last.len === mj) last.len += 1;
    else ops.push({ tag: 'equal', oldIndex: mi, newIndex: mj, len: 1 });
    i += 1;
    j += 1;
  }
  return ops;
}

// `similar`'s `group_diff_ops`: trim the outer unchanged runs to `radius`, and split wherever
// an unchanged run is longer than two radii.
function groupOps(ops: DiffOp[], radius: number): DiffOp[][] {
  if (ops.length === 0) return [];
  const first = ops[0]!;
  if (first.tag === 'equal') {
    const offset = Math.max(first.len - radius, 0);
    ops[0] = { tag: 'equal', oldIndex: first.oldIndex + offset, newIndex: first.newIndex + offset, len: first.len - offset };
  }
  const last = ops[ops.length - 1]!;
  if (last.tag === 'equal') ops[ops.length - 1] = { ...last, len: Math.min(last.len, radius) };
  const groups: DiffOp[][] = [];
  let pending: DiffOp[] = [];
  for (const op of ops) {
    if (op.tag === 'equal' && op.len > radius * 2) {
      pending.push({ ...op, len: radius });
      groups.push(pending);
      const offset = op.len - radius;
      pending = [{ tag: 'equal', oldIndex: op.oldIndex + offset, newIndex: op.newIndex + offset, len: radius }];
      continue;
    }
    pending.push(op);
  }
  if (!(pending.length === 0 || (pending.length === 1 && pending[0]!.tag === 'equal'))) groups.push(pending);
  // A leading group made only of the first trimmed run carries no change.
  return groups.filter((group) => group.some((op) => op.tag === 'change'));
}

function formatHunk(group: DiffOp[], oldLines: string[], newLines: string[]): string {
  const head = group[0]!;
  const tail = group[group.length - 1]!;
  const oldStart = head.oldIndex;
  const newStart = head.newIndex;
  const oldEnd = tail.oldIndex + (tail.tag === 'equal' ? tail.len : tail.oldLen);
  const newEnd = tail.newIndex + (tail.tag === 'equal' ? tail.len : tail.newLen);
  let out = `@@ -${range(oldStart, oldEnd)} +${range(newStart, newEnd)} @@\n`;
  for (const op of group) {
    if (op.tag === 'equal') {
      for (let k = 0; k < op.len; k += 1) out += diffLine(' ', oldLines[op.oldIndex + k]!);
    } else {
      for (let k = 0; k < op.oldLen; k += 1) out += diffLine('-', oldLines[op.oldIndex + k]!);
      for (let k = 0; k < op.newLen; k += 1) out += diffLine('+', newLines[op.newIndex + k]!);
    }
  }
  return out;
}

function range(start: number, end: number): string {
  const len = end - start;
  if (len === 1) return `${start + 1}`;
  return `${len === 0 ? start : start + 1},${len}`;
}

function diffLine(sign: string, line: string): string {
  return line.endsWith('\n') ? `${sign}${line}` : `${sign}${line}\n\\ No newline at end of file\n`;
}
