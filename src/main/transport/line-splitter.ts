// Splits a byte stream into newline-terminated lines without ever holding more than
// `maxLineBytes` of one line: an oversized line is skipped to its end and reported once,
// so a client cannot make the host buffer without bound. With `headBytes`, the report
// carries the line's first bytes, enough to find the id of a request that was too big.
// A line of at least `largeLineBytes` is handed on undecoded (`largeLine`), for the
// line-parser worker to decode and parse off the main thread.
import { decodeUtf8Line } from '../../common/line-outcome.js';

// A large line is copied into blocks this big as it arrives (see #copy).
const LARGE_BLOCK_BYTES = 1024 * 1024;

export type LineEvent =
  | { kind: 'line'; text: string }
  /** Each segment is the only view of its own ArrayBuffer, so it can be transferred. */
  | { kind: 'largeLine'; segments: Uint8Array[]; bytes: number }
  | { kind: 'oversized'; bytes: number; head?: Buffer }
  | { kind: 'invalidUtf8' };

export class LineSplitter {
  #parts: Uint8Array[] = [];
  #size = 0;
  /** Set once the line reached `largeLineBytes`: its parts are then blocks it owns. */
  #large = false;
  /** Bytes used in the last block of a large line. */
  #blockUsed = 0;
  #skipping = false;
  #skipped = 0;
  #head: Buffer | null = null;

  constructor(
    private readonly maxLineBytes: number,
    private readonly headBytes = 0,
    private readonly largeLineBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Feeds a chunk; returns the complete lines (and problems) it finished. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) break;
      events.push(this.#finish());
      start = newline + 1;
    }
    return events;
  }

  /** Ends the stream; a last line without a newline still counts, as `lines()` reads it. */
  end(): LineEvent[] {
    return this.#size > 0 || this.#skipping ? [this.#finish()] : [];
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipping) {
      this.#skipped += piece.length;
      return;
    }
    if (this.#size + piece.length > this.maxLineBytes) {
      this.#skipping = true;
      this.#skipped = this.#size + piece.length;
      if (this.headBytes > 0) this.#head = firstBytes([...this.#parts, piece], this.headBytes);
      this.#parts = [];
      this.#size = 0;
      this.#large = false;
      return;
    }
    this.#size += piece.length;
    if (this.#large) {
      this.#copy(piece);
      return;
    }
    this.#parts.push(piece);
    if (this.#size >= this.largeLineBytes) {
      // From here on the line is copied as it arrives, so the copy is spread over the reads
      // instead of one stall at its end, and the copies can be transferred, where the pieces
      // are views into chunks that may also hold the next line.
      const parts = this.#parts;
      this.#parts = [];
      this.#large = true;
      for (const part of parts) this.#copy(part);
    }
  }

  // Copies into blocks of LARGE_BLOCK_BYTES: transferring an ArrayBuffer has a fixed cost each,
  // which a multi-megabyte line sent as its 64 KiB reads paid once per read (bench case
  // `huge-line`).
  #copy(piece: Uint8Array): void {
    for (let at = 0; at < piece.length; ) {
      let block = this.#parts[this.#parts.length - 1];
      if (block === undefined || this.#blockUsed === block.length) {
        block = new Uint8Array(LARGE_BLOCK_BYTES);
        this.#parts.push(block);
        this.#blockUsed = 0;
      }
      const take = Math.min(piece.length - at, block.length - this.#blockUsed);
      block.set(piece.subarray(at, at + take), this.#blockUsed);
      this.#blockUsed += take;
      at += take;
    }
  }

  #finish(): LineEvent {
    if (this.#skipping) {
      const bytes = this.#skipped;
      const head = this.#head;
      this.#skipping = false;
      this.#skipped = 0;
      this.#head = null;
      return head === null ? { kind: 'oversized', bytes } : { kind: 'oversized', bytes, head };
    }
    const parts = this.#parts;
    const size = this.#size;
    const large = this.#large;
    this.#parts = [];
    this.#size = 0;
    this.#large = false;
    if (large) {
      parts[parts.length - 1] = parts[parts.length - 1]!.subarray(0, this.#blockUsed);
      return { kind: 'largeLine', ...withoutCarriageReturn(parts), bytes: size };
    }
    const text = decodeUtf8Line(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
    if (text === null) return { kind: 'invalidUtf8' };
    return { kind: 'line', text: text.endsWith('\r') ? text.slice(0, -1) : text };
  }
}

/** The segments of a CRLF line without its `\r` (one byte in UTF-8, so never part of a character). */
function withoutCarriageReturn(segments: Uint8Array[]): { segments: Uint8Array[] } {
  const last = segments[segments.length - 1]!;
  if (last[last.length - 1] !== 0x0d) return { segments };
  return { segments: [...segments.slice(0, -1), last.subarray(0, -1)] };
}

/** A copy of the first `n` bytes of `parts`, so the head does not keep a big chunk alive. */
export function firstBytes(parts: readonly Uint8Array[], n: number): Buffer {
  const head = Buffer.alloc(Math.min(n, parts.reduce((sum, part) => sum + part.byteLength, 0)));
  let at = 0;
  for (const part of parts) {
    if (at === head.length) break;
    const take = Math.min(part.byteLength, head.length - at);
    head.set(part.subarray(0, take), at);
    at += take;
  }
  return head;
}
