// One WebSocket from this host to the owner of some threads, opened for one client connection
// (forwarder.ts): it replays that client's own `initialize`, carries the requests forwarded for
// it and brings back the owner's answers and notifications. Every wait has a deadline (opening,
// each request), and a keepalive drops a link whose owner answers no ping, so a dead or slow
// owner costs the requests sent to it and nothing else.
//
// Replies keep their bytes: a result goes back to the client as the owner wrote it, only the
// id replaced, and a notification exactly as it came.
import WebSocket from 'ws';
import type { LogFn } from '../../common/log.js';

/** How long opening a link (connect, upgrade, initialize) may take. */
export const PEER_OPEN_DEADLINE_MS = 5_000;
// A link whose owner answered no ping between two rounds is dropped (a partition sends no reset).
const PEER_PING_INTERVAL_MS = 5_000;
// The id of the replayed initialize; forwarded requests count from the next.
const INITIALIZE_ID = 0;

/** An answer the owner gave, or why there is none. */
export class PeerLinkError extends Error {
  constructor(
    message: string,
    /** The owner's own JSON-RPC error, when it answered with one. */
    readonly rpcError: { code: number; message: string; data?: unknown } | null = null,
  ) {
    super(message);
  }
}

export interface PeerLinkEvents {
  /** A notification from the owner: its method, params and the message as it came. */
  notification(method: string, params: unknown, text: string): void;
  /** A request from the owner (a tool call, an approval) for the client, under the owner's id. */
  serverRequest(id: number | string, method: string, params: unknown): void;
  /** The link is gone (called once); every request still waiting was rejected before. */
  closed(reason: string): void;
}

interface Waiting {
  onResult: (resultJson: string) => void;
  resolve: () => void;
  reject: (error: PeerLinkError) => void;
  timer: NodeJS.Timeout;
}

export class PeerLink {
  readonly #socket: WebSocket;
  readonly #waiting = new Map<number, Waiting>();
  #nextId = INITIALIZE_ID + 1;
  #closedReason: string | null = null;
  #answered = true;
  #keepalive: NodeJS.Timeout | null = null;
  #events: PeerLinkEvents | null = null;

  private constructor(
    readonly endpoint: string,
    socket: WebSocket,
    private readonly log: LogFn,
  ) {
    this.#socket = socket;
  }

  /**
   * Connects to `endpoint` with `token`, replays the client's `initialize` and sends
   * `initialized`; rejects with what failed (the owner's HTTP refusal, its error, the deadline).
   */
  static open(endpoint: string, token: string, initializeParams: unknown, events: PeerLinkEvents, log: LogFn): Promise<PeerLink> {
    const socket = new WebSocket(endpoint, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false, handshakeTimeout: PEER_OPEN_DEADLINE_MS });
    const link = new PeerLink(endpoint, socket, log);
    return new Promise<PeerLink>((resolve, reject) => {
      const fail = (message: string) => {
        socket.terminate();
        reject(new PeerLinkError(message));
      };
      const timer = setTimeout(() => fail(`opening the link took longer than ${PEER_OPEN_DEADLINE_MS} ms`), PEER_OPEN_DEADLINE_MS);
      timer.unref();
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          clearTimeout(timer);
          fail(`it refused the link (HTTP ${response.statusCode ?? 0}: ${body})`);
        });
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        fail(error.message);
      });
      socket.once('open', () => {
        socket.removeAllListeners('error');
        link.#attach();
        link.#send(INITIALIZE_ID, 'initialize', initializeParams, () => undefined)
          .then(() => {
            clearTimeout(timer);
            socket.send('{"method":"initialized"}');
            link.#events = events;
            link.#startKeepalive();
            resolve(link);
          })
          .catch((error: PeerLinkError) => {
            clearTimeout(timer);
            fail(`it refused the replayed initialize: ${error.message}`);
          });
      });
    });
  }

  /** False once the link is gone. */
  get open(): boolean {
    return this.#closedReason === null;
  }

  /**
   * Sends one request. `onResult` gets the owner's result as JSON text, synchronously as it
   * arrives (so it reaches the client before the owner's next notification), then the promise
   * resolves; an error answer, the deadline or the link's loss rejects it.
   */
  request(method: string, paramsJson: string, deadlineMs: number, onResult: (resultJson: string) => void): Promise<void> {
    if (this.#closedReason !== null) return Promise.reject(new PeerLinkError(`the link is closed (${this.#closedReason})`));
    return this.#sendRaw(this.#nextId++, method, paramsJson, deadlineMs, onResult);
  }

  /** Closes the link (its client went); requests still waiting are rejected. */
  close(reason: string): void {
    this.#gone(reason);
    this.#socket.terminate();
  }

  #send(id: number, method: string, params: unknown, onResult: (resultJson: string) => void): Promise<void> {
    return this.#sendRaw(id, method, JSON.stringify(params ?? null), PEER_OPEN_DEADLINE_MS, onResult);
  }

  #sendRaw(id: number, method: string, paramsJson: string, deadlineMs: number, onResult: (resultJson: string) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new PeerLinkError(`it did not answer ${method} within ${deadlineMs} ms`));
      }, deadlineMs);
      timer.unref();
      this.#waiting.set(id, { onResult, resolve, reject, timer });
      this.#socket.send(`{"id":${id},"method":${JSON.stringify(method)},"params":${paramsJson}}`);
    });
  }

  #attach(): void {
    this.#socket.on('message', (data: Buffer, isBinary: boolean) => {
      this.#answered = true;
      if (!isBinary) this.#received(data.toString('utf8'));
    });
    this.#socket.on('pong', () => (this.#answered = true));
    this.#socket.on('error', (error) => this.close(error.message));
    this.#socket.on('close', (code) => this.#gone(`the owner closed it (${code})`));
  }

  #received(text: string): void {
    // The owner writes a result as `{"id":N,"result":…}` (outgoing.ts): taken apart without a parse.
    const head = RESULT_HEAD.exec(text);
    if (head !== null) {
      this.#settle(Number(head[1]), (waiting) => {
        waiting.onResult(text.slice(head[0].length, -1));
        waiting.resolve();
      });
      return;
    }
    let message: { id?: unknown; method?: unknown; params?: unknown; error?: { code: number; message: string; data?: unknown } };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      this.log('warn', 'dropping a message from a peer that is not JSON', { endpoint: this.endpoint, chars: text.length });
      return;
    }
    if (typeof message.method === 'string' && message.id === undefined) this.#events?.notification(message.method, message.params, text);
    else if (typeof message.method === 'string' && (typeof message.id === 'number' || typeof message.id === 'string')) {
      this.#events?.serverRequest(message.id, message.method, message.params);
    }
    else if (typeof message.id === 'number' && message.error !== undefined) {
      const error = message.error;
      this.#settle(message.id, (waiting) => waiting.reject(new PeerLinkError(error.message, error)));
    } else this.log('warn', 'dropping a message from a peer that is neither a reply nor a notification', { endpoint: this.endpoint });
  }

  /** The client's answer to a request of the owner's, under the owner's id. */
  answerRequest(id: number | string, answer: { result: unknown } | { error: unknown }): void {
    if (this.#closedReason !== null) return;
    this.#socket.send(JSON.stringify({ id, ...answer }));
  }

  #settle(id: number, settle: (waiting: Waiting) => void): void {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return;
    this.#waiting.delete(id);
    clearTimeout(waiting.timer);
    settle(waiting);
  }

  #startKeepalive(): void {
    this.#keepalive = setInterval(() => {
      if (!this.#answered) {
        this.close(`the owner answered no ping for ${PEER_PING_INTERVAL_MS} ms`);
        return;
      }
      this.#answered = false;
      this.#socket.ping();
    }, PEER_PING_INTERVAL_MS);
    this.#keepalive.unref();
  }

  #gone(reason: string): void {
    if (this.#closedReason !== null) return;
    this.#closedReason = reason;
    if (this.#keepalive !== null) clearInterval(this.#keepalive);
    for (const [id, waiting] of this.#waiting) {
      this.#waiting.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new PeerLinkError(`the link was lost (${reason})`));
    }
    this.#events?.closed(reason);
  }
}

const RESULT_HEAD = /^\{"id":(\d+),"result":/;
