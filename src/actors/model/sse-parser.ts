// An incremental Server-Sent Events parser (the WHATWG "event stream interpretation", minus
// `id`/`retry`, which a model stream never needs). Chunks may be split anywhere: inside a UTF-8
// sequence, between the `\r` and `\n` of a CRLF, or in the middle of a field name.
//
//   bytes ──StringDecoder──▶ text ──line splitter──▶ fields ──blank line──▶ SseEvent
//                (keeps a partial                (keeps a partial line
//                 code point)                     and a pending `\r`)
//
// Unlike the WHATWG algorithm, a block with an `event:` line but no `data:` line is dispatched
// (with `data: ''`): the reference mock writes events that have only a `type` that way.

import { StringDecoder } from 'node:string_decoder';

/** One dispatched event. `event` is null when the block had no `event:` field. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/** Options for {@link SseParser}. */
export interface SseParserOptions {
  /**
   * Largest event accepted, counted in UTF-16 code units of its `event` name, its data and the
   * line being read. Equal to bytes for ASCII, which model streams are apart from text content.
   */
  maxEventLength?: number;
}

/** Default bound on one event: a model event is at most a few hundred KiB in practice. */
export const DEFAULT_MAX_SSE_EVENT_LENGTH = 16 * 1024 * 1024;

/** Thrown when one event outgrows the bound; the parser must be discarded afterwards. */
export class SseEventTooLargeError extends Error {
  readonly limit: number;

  constructor(limit: number) {
    super(`SSE event exceeds the limit of ${limit} characters`);
    this.name = 'SseEventTooLargeError';
    this.limit = limit;
  }
}

// One scan over the text finds every line end; `lastIndex` carries the position.
const LINE_END = /\r\n|\r|\n/g;

/** Feeds chunks in, returns the events each chunk completes. Not reusable after a throw. */
export class SseParser {
  readonly #decoder = new StringDecoder('utf8');
  readonly #maxEventLength: number;
  /** The unterminated tail of the input (never contains a line end). */
  #partialLine = '';
  /** A chunk ended in `\r`: a `\n` starting the next chunk belongs to that line end. */
  #skipLeadingLf = false;
  #atStreamStart = true;
  #eventName: string | null = null;
  #data: string | null = null;
  /** Size of the event being built, without `#partialLine`. */
  #eventLength = 0;

  constructor(options: SseParserOptions = {}) {
    this.#maxEventLength = options.maxEventLength ?? DEFAULT_MAX_SSE_EVENT_LENGTH;
  }

  /** Parses one chunk and returns the events whose terminating blank line it contained. */
  push(chunk: Buffer | Uint8Array | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    if (this.#atStreamStart && text.length > 0) {
      this.#atStreamStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading BOM is not content
    }
    let start = 0;
    if (this.#skipLeadingLf && text.length > 0) {
      this.#skipLeadingLf = false;
      if (text.charCodeAt(0) === 0x0a) start = 1;
    }

    const events: SseEvent[] = [];
    LINE_END.lastIndex = start;
    for (let match = LINE_END.exec(text); match !== null; match = LINE_END.exec(text)) {
      let line = text.slice(start, match.index);
      if (this.#partialLine.length > 0) {
        line = this.#partialLine + line;
        this.#partialLine = '';
      }
      start = match.index + match[0].length;
      // A lone `\r` at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && start === text.length) this.#skipLeadingLf = true;
      const event = this.#acceptLine(line);
      if (event !== null) events.push(event);
    }
    if (start < text.length) {
      this.#partialLine += text.slice(start);
      this.#checkLength(this.#eventLength + this.#partialLine.length);
    }
    return events;
  }

  /**
   * Marks the end of input. An event without its terminating blank line is discarded, as the
   * WHATWG algorithm says, so a truncated stream never yields a truncated event.
   */
  end(): SseEvent[] {
    this.#decoder.end();
    this.#partialLine = '';
    this.#resetEvent();
    return [];
  }

  #acceptLine(line: string): SseEvent | null {
    if (line.length === 0) return this.#dispatch();
    if (line.charCodeAt(0) === 0x3a) return null; // `:` starts a comment (keep-alives)

    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      // Exactly one space after the colon is syntax, not data.
      const valueStart = line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1;
      value = line.slice(valueStart);
    }

    if (field === 'data') {
      this.#data = this.#data === null ? value : `${this.#data}\n${value}`;
      this.#eventLength += value.length + 1;
    } else if (field === 'event') {
      this.#eventLength += value.length - (this.#eventName?.length ?? 0);
      this.#eventName = value;
    }
    // `id`, `retry` and unknown fields are ignored.
    this.#checkLength(this.#eventLength);
    return null;
  }

  #dispatch(): SseEvent | null {
    if (this.#data === null && this.#eventName === null) return null;
    const event: SseEvent = { event: this.#eventName, data: this.#data ?? '' };
    this.#resetEvent();
    return event;
  }

  #resetEvent(): void {
    this.#eventName = null;
    this.#data = null;
    this.#eventLength = 0;
  }

  #checkLength(length: number): void {
    if (length > this.#maxEventLength) throw new SseEventTooLargeError(this.#maxEventLength);
  }
}
