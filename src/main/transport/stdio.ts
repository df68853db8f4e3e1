// The stdio transport: one connection per process, newline-delimited JSON both ways.
// Reading and writing are separate; writes are ordered, and when the client stops reading
// its stdout the queued bytes are capped: past the cap the connection is closed rather than
// letting the host grow without bound.
import type { Readable, Writable } from 'node:stream';
import { LineSplitter, type LineEvent } from './line-splitter.js';

export interface StdioTransportOptions {
  input: Readable;
  output: Writable;
  maxLineBytes: number;
  maxOutboundBytes: number;
  onLine(text: string): void;
  onDropped(event: Exclude<LineEvent, { kind: 'line' }>): void;
  /** The connection ended: stdin EOF, a broken stdout, or an outbound overflow. */
  onClose(reason: 'eof' | 'outputClosed' | 'outboundOverflow'): void;
}

export class StdioTransport {
  readonly #options: StdioTransportOptions;
  readonly #splitter: LineSplitter;
  #closed = false;

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter(options.maxLineBytes);
    const { input, output } = options;
    input.on('data', (chunk: Buffer) => this.#deliver(this.#splitter.push(chunk)));
    input.on('end', () => {
      this.#deliver(this.#splitter.end());
      this.#close('eof');
    });
    input.on('error', () => this.#close('eof'));
    output.on('error', () => this.#close('outputClosed'));
  }

  /** Queues one line; false once the connection is closed. */
  send(line: string): boolean {
    if (this.#closed) return false;
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
    if (this.#closed) return;
    this.#closed = true;
    this.#options.input.pause();
    this.#options.onClose(reason);
  }
}
