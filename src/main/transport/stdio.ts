// The stdio transport: one connection for the process's life, newline-delimited JSON both
// ways. Reading and writing are separate; writes are ordered, and when the client stops
// reading its stdout the queued bytes are capped: past the cap the connection is closed
// rather than letting the host grow without bound.
import type { Readable, Writable } from 'node:stream';
import { waitUntil } from '../wait-until.js';
import { LineSplitter, type LineEvent } from './line-splitter.js';
import { OutputFlusher } from './output-flusher.js';
import { LARGE_LINE_BYTES, type CloseReason, type ConnectionHandler, type ConnectionSink, type Transport, type WireMessage } from './transport.js';

const NEWLINE = Buffer.from('\n');

// How much of an oversized line is kept: enough for `{"id":…,"method":"…"` with a long
// string id, so that request can still be answered with the overload error.
export const OVERSIZED_HEAD_BYTES = 4096;

export interface StdioTransportOptions {
  input: Readable;
  output: Writable;
  maxLineBytes: number;
  maxOutboundBytes: number;
}

export class StdioTransport implements Transport, ConnectionSink {
  readonly #options: StdioTransportOptions;
  readonly #splitter: LineSplitter;
  #handler: ConnectionHandler | null = null;
  #closed = false;
  /** Set when stdout broke or overflowed; stdin EOF alone leaves writing open for pending replies. */
  #writeClosed = false;
  readonly #flusher = new OutputFlusher();

  constructor(options: StdioTransportOptions) {
    this.#options = options;
    this.#splitter = new LineSplitter(options.maxLineBytes, OVERSIZED_HEAD_BYTES, LARGE_LINE_BYTES);
  }

  /** The one connection opens at once, on stdin/stdout. */
  listen(open: (sink: ConnectionSink) => ConnectionHandler): void {
    if (this.#handler !== null) throw new Error('the stdio transport has one connection');
    this.#handler = open(this);
    const { input, output } = this.#options;
    input.on('data', (chunk: Buffer) => this.#deliver(this.#splitter.push(chunk)));
    input.on('end', () => {
      this.#deliver(this.#splitter.end());
      this.#close('eof');
    });
    input.on('error', () => this.#close('eof'));
    output.on('error', () => this.#close('outputClosed'));
  }

  // There is never a second connection to refuse; input keeps flowing so requests sent during
  // shutdown get the draining error instead of silence.
  stopAccepting(): void {}

  // stdin and stdout belong to the process; they close with it.
  close(): void {}

  /** Queues one line; false once stdout is unusable (broken or overflowed). */
  send(line: WireMessage): boolean {
    if (this.#writeClosed) return false;
    const { output, maxOutboundBytes } = this.#options;
    this.#flusher.beforeWrite(output);
    if (typeof line === 'string') output.write(line + '\n');
    else if (Buffer.isBuffer(line)) {
      // Two writes, not a concatenation: a message of bytes may be megabytes (an encoded echo).
      output.write(line);
      output.write(NEWLINE);
    } else {
      // Corked, the pieces leave in one writev (nested in the flusher's cork, if it holds one).
      output.cork();
      for (const part of line) output.write(part);
      output.write(NEWLINE);
      output.uncork();
    }
    if (output.writableLength > maxOutboundBytes) {
      this.#close('outboundOverflow');
      return false;
    }
    return true;
  }

  /** Resolves when everything written so far has been handed to the OS (or `ms` passed). */
  flush(ms: number): Promise<void> {
    const { output } = this.#options;
    this.#flusher.flushNow();
    return waitUntil(() => output.writableLength === 0 || output.destroyed, ms);
  }

  #deliver(events: LineEvent[]): void {
    for (const event of events) {
      if (this.#closed) return;
      if (event.kind === 'line') this.#handler!.message(event.text);
      else if (event.kind === 'largeLine') this.#handler!.largeMessage(event);
      else this.#handler!.dropped(event);
    }
  }

  #close(reason: CloseReason): void {
    if (reason !== 'eof') this.#writeClosed = true;
    if (this.#closed) return;
    this.#closed = true;
    this.#options.input.pause();
    this.#handler!.closed(reason);
  }
}
