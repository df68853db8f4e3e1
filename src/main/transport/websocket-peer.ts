// One WebSocket connection seen as a host connection: each text message in is one JSON-RPC
// message, each message out is one text message: one frame, or, for a message left in pieces
// (a large input's echo), one fragment per piece. Output is capped like stdio's: a client whose
// unsent output passes `max_outbound_bytes` is disconnected (that connection only). Binary
// frames are dropped, as the reference drops them; the connection keeps serving. Output
// leaves through the transport's OutputFlusher: one write per socket per flush.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { LogFn } from '../../common/log.js';
import { waitUntil } from '../wait-until.js';
import type { OutputFlusher } from './output-flusher.js';
import { LARGE_LINE_BYTES, type CloseReason, type ConnectionHandler, type ConnectionSink, type WireMessage } from './transport.js';

/** From this length on a string is encoded before ws sees it (below, ws's own path is cheaper). */
const ENCODE_ONCE_CHARS = 64 * 1024;

export class WebSocketPeer implements ConnectionSink {
  /** Cleared at each keepalive round and set by any frame from the client (a pong included). */
  alive = true;
  #closeReason: CloseReason | null = null;

  constructor(
    readonly socket: WebSocket,
    private readonly maxOutboundBytes: number,
    private readonly log: LogFn,
    readonly id: string,
    private readonly flusher: OutputFlusher,
    /** Opened by another host of the fleet with its token (fleet-token.ts). */
    readonly fleetPeer = false,
  ) {}

  /** Starts delivering input to `handler`; `onGone` runs once the connection has closed. */
  attach(handler: ConnectionHandler, onGone: () => void): void {
    const { socket } = this;
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.alive = true;
      if (isBinary) this.log('warn', 'dropping unsupported binary websocket message', { peer: this.id, bytes: data.length });
      else if (data.length >= LARGE_LINE_BYTES) handler.largeMessage({ segments: [owned(data)], bytes: data.length });
      else handler.message(data.toString('utf8'));
    });
    socket.on('pong', () => (this.alive = true));
    socket.on('ping', () => (this.alive = true));
    // A frame over the size limit, invalid UTF-8 in a text frame, a protocol error: the
    // reference drops the connection; so do we.
    socket.on('error', (error: Error) => {
      this.log('warn', 'websocket receive error', { peer: this.id, error: error.message });
      socket.terminate();
    });
    socket.on('close', () => {
      handler.closed(this.#closeReason ?? 'eof');
      onGone();
    });
  }

  send(message: WireMessage): boolean {
    if (this.#closeReason !== null || this.socket.readyState !== this.socket.OPEN) return false;
    this.#beforeWrite();
    // Bytes are sent as they are (a text frame). ws measures a string's UTF-8 length and then
    // encodes it again as it writes: for a large one (a pasted turn echoed back) encoding it
    // here once saves that second pass over the main thread (bench case `huge-line`).
    if (typeof message === 'string') this.socket.send(message.length >= ENCODE_ONCE_CHARS ? Buffer.from(message) : message, { binary: false });
    else if (Buffer.isBuffer(message)) this.socket.send(message, { binary: false });
    // Pieces go out as the fragments of one text message (RFC 6455 §5.4), none copied to join them.
    else message.forEach((part, i) => this.socket.send(part, { binary: false, fin: i === message.length - 1 }));
    if (this.socket.bufferedAmount > this.maxOutboundBytes) {
      this.log('warn', 'disconnecting slow connection after outbound queue filled', { peer: this.id, bytes: this.socket.bufferedAmount });
      this.terminate('outboundOverflow');
      return false;
    }
    return true;
  }

  flush(ms: number): Promise<void> {
    return waitUntil(() => this.socket.bufferedAmount === 0 || this.socket.readyState !== this.socket.OPEN, ms);
  }

  #beforeWrite(): void {
    // `_socket` is ws's underlying net.Socket (not in its typings, stable across ws 8).
    const raw = (this.socket as unknown as { _socket?: Socket })._socket;
    if (raw) this.flusher.beforeWrite(raw);
  }

  /** True once the host dropped the connection (its close event may still be on the way). */
  get dropped(): boolean {
    return this.#closeReason !== null;
  }

  /** Drops the connection at once (no close handshake), as the reference does. */
  terminate(reason: CloseReason): void {
    this.#closeReason ??= reason;
    this.socket.terminate();
  }
}

/**
 * The message's bytes as the only view of their ArrayBuffer, to be transferred to the line
 * parser: ws hands over a large message in a buffer of its own (assembled from the socket's
 * reads, and not used by ws after the event); anything else is copied.
 */
function owned(data: Buffer): Uint8Array {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : new Uint8Array(data);
}
