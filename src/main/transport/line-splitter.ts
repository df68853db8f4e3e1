// Splits a byte stream into newline-terminated lines without ever holding more than
// `maxLineBytes` of one line: an oversized line is skipped to its end and reported once,
// so a client cannot make the host buffer without bound.

export type LineEvent = { kind: 'line'; text: string } | { kind: 'oversized'; bytes: number } | { kind: 'invalidUtf8' };

const decoder = new TextDecoder('utf-8', { fatal: true });

export class LineSplitter {
  #parts: Buffer[] = [];
  #size = 0;
  #skipping = false;
  #skipped = 0;

  constructor(private readonly maxLineBytes: number) {}

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
      this.#skipping = false;
      this.#skipped = 0;
      return { kind: 'oversized', bytes };
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
