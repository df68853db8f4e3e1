// Splits a byte stream into newline-terminated lines without ever holding more than
// `maxLineBytes` of one line: an oversized line is skipped to its end and reported once,
// so a client cannot make the host buffer without bound. With `headBytes`, the report
// carries the line's first bytes, enough to find the id of a request that was too big.

export type LineEvent =
  | { kind: 'line'; text: string }
  | { kind: 'oversized'; bytes: number; head?: Buffer }
  | { kind: 'invalidUtf8' };

// ignoreBOM keeps a leading U+FEFF in the text: serde_json does not skip it, so neither may we.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;
  #skipped = 0;
  #head: Buffer | null = null;

  constructor(
    private readonly maxLineBytes: number,
    private readonly headBytes = 0,
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
      return;
    }
    this.#parts.push(piece);
    this.#size += piece.length;
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
    const bytes = this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#size);
    this.#parts = [];
    this.#size = 0;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return { kind: 'invalidUtf8' };
    }
    return { kind: 'line', text: text.endsWith('\r') ? text.slice(0, -1) : text };
  }
}

/** A copy of the first `n` bytes of `parts`, so the head does not keep a big chunk alive. */
function firstBytes(parts: Buffer[], n: number): Buffer {
  const head = Buffer.alloc(Math.min(n, parts.reduce((sum, part) => sum + part.length, 0)));
  let at = 0;
  for (const part of parts) {
    if (at === head.length) break;
    at += part.copy(head, at, 0, Math.min(part.length, head.length - at));
  }
  return head;
}
