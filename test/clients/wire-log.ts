// A WebSocket relay between a client and a host, keeping every text message that passes, in
// order, parsed: what the client sent (`up`) and what the host sent (`down`). The client is
// given `remote` instead of the host's own address; the relay closes when the test finishes.
import { onTestFinished } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { Message } from '../helpers/ws-server.js';

export interface WireMessage {
  direction: 'up' | 'down';
  message: Message;
}

export class WireLog {
  readonly messages: WireMessage[] = [];

  private constructor(
    private readonly server: WebSocketServer,
    /** `ws://127.0.0.1:PORT`, for the client's `--remote`. */
    readonly remote: string,
  ) {}

  /** Listens on a free port of 127.0.0.1; each connection is relayed to `upstream` (a `ws://` URL). */
  static async start(upstream: string): Promise<WireLog> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('wire log: no TCP address');
    const log = new WireLog(server, `ws://127.0.0.1:${address.port}`);
    server.on('connection', (client, request) => log.#relay(client, new WebSocket(`${upstream}${request.url ?? '/'}`, { headers: forwarded(request.headers) })));
    onTestFinished(() => log.close());
    return log;
  }

  /** The client's requests (and notifications) of `method`, params only. */
  sent(method: string): Message[] {
    return this.messages.filter((m) => m.direction === 'up' && m.message.method === method).map((m) => m.message.params as Message);
  }

  /** The host's requests of `method` with the client's answer to each (null while unanswered). */
  asked(method: string): Array<{ request: Message; answer: Message | null }> {
    return this.messages
      .filter((m) => m.direction === 'down' && m.message.method === method && 'id' in m.message)
      .map(({ message }) => ({
        request: message,
        answer: this.messages.find((m) => m.direction === 'up' && m.message.id === message.id && m.message.method === undefined)?.message ?? null,
      }));
  }

  /** The whole log, one message a line, for a failure's message. */
  toString(): string {
    return this.messages.map((m) => `${m.direction === 'up' ? '>' : '<'} ${JSON.stringify(m.message)}`).join('\n');
  }

  close(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  #relay(client: WebSocket, upstream: WebSocket): void {
    const pending: string[] = [];
    const record = (direction: WireMessage['direction'], text: string): void => {
      try {
        this.messages.push({ direction, message: JSON.parse(text) as Message });
      } catch {
        this.messages.push({ direction, message: { unparsed: text } });
      }
    };
    client.on('message', (data, isBinary) => {
      const text = data.toString();
      if (!isBinary) record('up', text);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text, { binary: isBinary });
      else pending.push(text);
    });
    upstream.on('open', () => {
      for (const text of pending.splice(0)) upstream.send(text);
    });
    upstream.on('message', (data, isBinary) => {
      const text = data.toString();
      if (!isBinary) record('down', text);
      if (client.readyState === WebSocket.OPEN) client.send(text, { binary: isBinary });
    });
    upstream.on('close', () => client.close());
    client.on('close', () => upstream.close());
    upstream.on('error', () => client.terminate());
    client.on('error', () => upstream.terminate());
  }
}

/** The client's headers the host may care about (auth), not the handshake's own. */
function forwarded(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['authorization', 'user-agent', 'originator']) {
    const value = headers[name];
    if (typeof value === 'string') kept[name] = value;
  }
  return kept;
}
