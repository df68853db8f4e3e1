// JSON-RPC texts over a WebSocket (`app-server --listen ws://…`, or `ws+unix:` for the unix
// control socket), one message per text frame, through the `ws` package. The peer is gone
// when the socket closed; closing sends a close frame and drops the socket after a grace.
import WebSocket from 'ws';
import type { MessageReader, MessageTransport, MessageWriter } from './message-transport.js';

export interface WebSocketOpenOptions {
  headers?: Record<string, string>;
  /** Answer the server's pings (default true); false plays a peer that vanished. */
  autoPong?: boolean;
}

/** The HTTP answer of a refused upgrade. */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}: ${body}`);
  }
}

export class WebSocketTransport implements MessageTransport {
  readonly reader: MessageReader;
  readonly writer: MessageWriter;
  /** Resolves with the close code once the socket is gone (1006: dropped without a close frame). */
  readonly closedCode: Promise<number>;
  /** Called for a binary frame, which is not a JSON-RPC message and is not delivered. */
  onBinaryFrame: () => void = () => undefined;

  private constructor(readonly socket: WebSocket) {
    this.closedCode = new Promise((resolve) => socket.on('close', (code) => resolve(code)));
    this.reader = {
      listen: (onText, onClose) => {
        socket.on('message', (data, isBinary) => {
          if (isBinary) this.onBinaryFrame();
          else onText(data.toString());
        });
        void this.closedCode.then((code) => onClose(`connection closed (${code})`));
      },
    };
    this.writer = {
      write: (text) => socket.send(text),
      encode: (text) => Buffer.from(text),
      writeEncoded: (frame) => socket.send(frame, { binary: false }),
    };
  }

  /** Connects; a refused upgrade rejects with HttpRefusal carrying the server's answer. */
  static open(url: string, options: WebSocketOpenOptions = {}): Promise<WebSocketTransport> {
    const socket = new WebSocket(url, { headers: options.headers ?? {}, autoPong: options.autoPong ?? true, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WebSocketTransport(socket)));
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => reject(new HttpRefusal(response.statusCode ?? 0, body)));
      });
      socket.once('error', reject);
    });
  }

  /** A close frame, then the socket dropped after `graceMs` if the server has not closed it (0: at once). */
  async close(graceMs: number): Promise<void> {
    if (graceMs <= 0) {
      this.socket.terminate();
    } else {
      this.socket.close(1000);
      const timer = setTimeout(() => this.socket.terminate(), graceMs);
      await this.closedCode;
      clearTimeout(timer);
    }
    await this.closedCode;
  }
}
