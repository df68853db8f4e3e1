// The seam between the wire and the host. A transport accepts connections and, for each,
// delivers complete input messages and writes output with backpressure; the host decides
// what messages mean. stdio is one transport (one connection for the process's life); a
// socket transport opens many.
import type { LineEvent } from './line-splitter.js';

/** An input message the transport could not deliver whole: too long, or not UTF-8. */
export type DroppedLine = Exclude<LineEvent, { kind: 'line' | 'largeLine' }>;

/** A message of at least LARGE_LINE_BYTES, undecoded; each segment owns its ArrayBuffer. */
export type LargeLine = Omit<Extract<LineEvent, { kind: 'largeLine' }>, 'kind'>;

// From this size on, a message is decoded and parsed off the main thread. Measured with
// `node dist/bench/line-parse-cost.js` (docs/BENCHMARKS.md, `huge-line`): decoding and parsing
// text with escapes and non-ASCII costs the main thread in proportion to its bytes, while
// handing a line to the worker and taking its value back costs about the same at any size;
// below this the worker's round trip adds more latency than the stall it saves.
export const LARGE_LINE_BYTES = 64 * 1024;

/**
 * Why a connection ended. 'eof': the client closed its side (its pending replies may still be
 * written). 'outputClosed': the client can no longer be written to. 'outboundOverflow': the
 * client stopped reading and its queued output passed the cap.
 */
export type CloseReason = 'eof' | 'outputClosed' | 'outboundOverflow';

/**
 * One serialized message, without its line end. A message bound for many connections is
 * encoded to UTF-8 once and passed as bytes, so each connection does not encode it again. A
 * message with a large input spliced into it (encoded-json.ts) stays in its pieces, written one
 * after another: joining them copied the whole input once per echo (bench case `huge-line`).
 */
export type WireMessage = string | Buffer | WireParts;

/** A message's bytes in order, as pieces; never empty. */
export type WireParts = readonly Buffer[];

/** The host's handle on one connection's output. */
export interface ConnectionSink {
  /** Queues one message; false once the connection cannot be written to. */
  send(message: WireMessage): boolean;
  /** Resolves when everything queued has been handed to the OS, or after `ms`. */
  flush(ms: number): Promise<void>;
  /** Opened by another host of a fleet (its token checked at the upgrade): a peer link, not a client. */
  readonly fleetPeer?: boolean;
}

/** What the host does with one connection's input; the transport calls these in order. */
export interface ConnectionHandler {
  message(text: string): void;
  /** A message too large to decode and parse on the main thread (see LARGE_LINE_BYTES). */
  largeMessage(line: LargeLine): void;
  dropped(event: DroppedLine): void;
  /** Called once; nothing is delivered after it. */
  closed(reason: CloseReason): void;
}

/** Accepts connections and moves messages; knows nothing of JSON-RPC. */
export interface Transport {
  /** Starts accepting: `open` is called once per new connection and returns its handler. */
  listen(open: (sink: ConnectionSink) => ConnectionHandler): void;
  /** Stops accepting connections and reading input (shutdown); open sinks stay writable. */
  stopAccepting(): void;
  /** Flushes every open connection's output, up to `ms`. */
  flush(ms: number): Promise<void>;
  /** Ends every connection and releases the listener (the last step of shutdown). */
  close(): void;
}
