// The stdio transport: one connection per process, newline-delimited JSON both ways.
// Reading and writing are separate; writes are ordered, and when the client stops reading
// its stdout the queued bytes are capped: past the cap the connection is closed rather than
// letting the host grow without bound.
import type { Readable, Writable } from 'node:stream';
import { LineSplitter, type LineEvent } from './line-splitter.js';

// How much of an oversized line is kept: enough for `{"id":…,"method":"…"` with a long
// string id, so that request can still be answered with the overload error.
const OVERSIZED_HEAD_BYTES = 4096;

/** A line the transport could not deliver: too long, or not UTF-8. */
export type DroppedLine = Exclude<LineEvent, { kind: 'line' }>;

export interface StdioTransportOptions {
  input: Readable;
  output: Writable;
  maxLineBytes: number;
  maxOutboundBytes: number;
  onLine(text: string): void;
  onDropped(event: DroppedLine): void;
  /** The connection ended: stdin EOF, a broken stdout, or an outbound overflow. */
  onClose(reason: 'eof' | 'outputClosed' | 'outboundOverflow'): void;
}

export class StdioTransport {
  readonly #options: StdioTransportOptions;
  readonly #splitter: LineSplitter;
  #closed = false;
  /** Set when stdout broke or overflowed; stdin EOF alone leaves writing open for pending replies. */
  #writeClosed = false;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter(options.maxLineBytes, OVERSIZED_HEAD_BYTES);
    const { input, output } = options;
    input.on('data', (chunk: Buffer) => this.#deliver(this.#splitter.push(chunk)));
    input.on('end', () => {
      this.#deliver(this.#splitter.end());
      this.#close('eof');
    });
    input.on('error', () => this.#close('eof'));
    output.on('error', () => this.#close('outputClosed'));
  }

  /** Queues one line; false once stdout is unusable (broken or overflowed). */
  send(line: string): boolean {
    if (this.#writeClosed) return false;
    const { output, maxOutboundBytes } = this.#options;
    output.write(line + '\n');
    if (output.writableLength > maxOutboundBytes) {
      this.#close('outboundOverflow');
      return false;
    }
    return true;
  }

  /** Resolves when everything written so far has been handed to the OS (or `ms` passed). */
  flush(ms: number): Promise<void> {
    const { output } = this.#options;
    if (output.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      output.once('drain', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #deliver(events: LineEvent[]): void {
    for (const event of events) {
      if (this.#closed) return;
      if (event.kind === 'line') this.#options.onLine(event.text);
      else this.#options.onDropped(event);
    }
  }

  #close(reason: 'eof' | 'outputClosed' | 'outboundOverflow'): void {
    if (reason !== 'eof') this.#writeClosed = true;
    if (this.#closed) return;
    this.#closed = true;
    this.#options.input.pause();
    this.#options.onClose(reason);
  }
}
