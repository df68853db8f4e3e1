// A stretch of a paginated rollout, from a checkpoint on, cut into the lines the reference's
// catch-up would project: only the newline-terminated prefix (a torn last line waits), blank
// lines moving the checkpoint, every other line projected (projected-line.ts) with its byte
// span and its ordinal checked to follow the one before. A line thread-host does not write, or
// an ordinal out of step, refuses the whole stretch: nothing of it is written.
import { projectLine, type ProjectedLine } from './projected-line.js';

/** Where the reference's next catch-up starts: `thread_history_projection_state`. */
export interface Checkpoint {
  offset: number;
  ordinal: number;
}

/** A projected line and its place in the file (the span includes the newline). */
export interface PlacedLine extends ProjectedLine {
  startOffset: number;
  endOffset: number;
}

export type TailVerdict =
  | { kind: 'tail'; lines: PlacedLine[]; next: Checkpoint }
  | { kind: 'refused'; reason: string };

const NEWLINE = 0x0a;

/** Cuts `bytes`, which sit at `from.offset` in the file, into projected lines. */
export function projectTail(bytes: Uint8Array, from: Checkpoint): TailVerdict {
  const complete = bytes.lastIndexOf(NEWLINE) + 1;
  const lines: PlacedLine[] = [];
  let next = { ...from };
  let start = 0;
  while (start < complete) {
    const end = bytes.indexOf(NEWLINE, start) + 1;
    const span = bytes.subarray(start, end);
    const startOffset = from.offset + start;
    const endOffset = from.offset + end;
    start = end;
    if (span.every(isAsciiWhitespace)) {
      next = { offset: endOffset, ordinal: next.ordinal };
      continue;
    }
    const verdict = projectLine(Buffer.from(span.buffer, span.byteOffset, span.length - 1).toString('utf8'));
    if (verdict.kind === 'refused') return { kind: 'refused', reason: `${verdict.reason} at byte ${startOffset}` };
    // A fork's file starts at its base's end ordinal (history-base.ts).
    const forkStart = startOffset === 0 && verdict.line.opensFork === true;
    if (verdict.line.ordinal !== next.ordinal && !forkStart) {
      return { kind: 'refused', reason: `ordinal ${verdict.line.ordinal} at byte ${startOffset} where ${next.ordinal} was expected` };
    }
    lines.push({ ...verdict.line, startOffset, endOffset });
    next = { offset: endOffset, ordinal: verdict.line.ordinal + 1 };
  }
  return { kind: 'tail', lines, next };
}

// Rust's `u8::is_ascii_whitespace`: space, \t, \n, \x0C, \r.
function isAsciiWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;
}
