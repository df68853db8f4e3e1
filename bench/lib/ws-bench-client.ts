// One bench client on a WebSocket server: JSON-RPC requests matched by id (each with a
// deadline), and every notification handed to `onNotification` with its arrival time in
// `Date.now()` ms, the clock the servers stamp `emittedAtMs` with (same machine).
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { INITIALIZE_PARAMS, RpcReplyError, type Json } from './app-server-client.js';
import { NotificationBuffer, notificationKey, type Arrival } from './notification-buffer.js';

const DEFAULT_DEADLINE_MS = 30_000;

export class WsBenchClient {
  readonly #pending = new Map<number, { resolve: (m: Json, at: number) => void; reject: (e: Error) => void }>();
  /** Waits for notifications not yet arrived; nothing unclaimed is kept. */
  readonly #notifications = new NotificationBuffer({ keepUnclaimed: false });
  #nextId = 1;
  /** Called for every notification, in arrival order, with the server's `emittedAtMs` (NaN if absent). */
  onNotification: (method: string, params: Json, arrivedAtMs: number, emittedAtMs: number) => void = () => undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.#receive(data.toString()));
    ws.on('close', () => {
      for (const { reject } of this.#pending.values()) reject(new Error('connection closed'));
      this.#pending.clear();
    });
  }

  /** Connects and initializes. */
  static async connect(url: string): Promise<WsBenchClient> {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const client = new WsBenchClient(ws);
    await client.request('initialize', INITIALIZE_PARAMS);
    ws.send(JSON.stringify({ method: 'initialized' }));
    return client;
  }

  request<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<T> {
    return this.prepare<T>(method, params, deadlineMs)().then(({ result }) => result);
  }

  /** Sends a request; resolves with its result and the reply's arrival (`performance.now()`). */
  requestTimed<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<{ result: T; at: number }> {
    return this.prepare<T>(method, params, deadlineMs)();
  }

  /**
   * Serializes a request now and returns what sends it, so that a multi-megabyte request's
   * JSON.stringify and UTF-8 encoding are not timed as the server's latency.
   */
  prepare<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): () => Promise<{ result: T; at: number }> {
    const id = this.#nextId++;
    const bytes = Buffer.from(JSON.stringify({ id, method, params }));
    return () =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new Error(`${method}: no answer within ${deadlineMs} ms`));
        }, deadlineMs);
        this.#pending.set(id, {
          resolve: (m, at) => {
            clearTimeout(timer);
            if ('error' in m) reject(new RpcReplyError(m.error?.code, `${method}: ${m.error?.message}`));
            else resolve({ result: m.result as T, at });
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        this.ws.send(bytes, { binary: false });
      });
  }

  /**
   * The next notification `method` about `threadId` to arrive after this call (unlike the stdio
   * client's, nothing is buffered: register it before sending what causes it). A wait whose
   * cause then failed is never awaited, so its deadline is caught here rather than left to crash
   * the bench as an unhandled rejection; whoever awaits it still sees the error.
   */
  waitFor(method: string, threadId: string, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Arrival> {
    const { arrival, cancel } = this.#notifications.wait(notificationKey(method, threadId));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cancel();
        reject(new Error(`no ${method} for ${threadId} within ${deadlineMs} ms`));
      }, deadlineMs);
    });
    const waited = Promise.race([arrival, deadline]).finally(() => clearTimeout(timer));
    waited.catch(() => undefined);
    return waited;
  }

  close(): void {
    this.ws.terminate();
  }

  #receive(text: string): void {
    const at = Date.now();
    const arrivedAt = performance.now();
    let message: Json;
    try {
      message = JSON.parse(text) as Json;
    } catch {
      return;
    }
    if ('method' in message && !('id' in message)) {
      const params = (message.params ?? {}) as Json;
      this.#notifications.deliver(String(message.method), params, arrivedAt);
      this.onNotification(String(message.method), params, at, Number(message.emittedAtMs ?? Number.NaN));
    }
    else if (!('method' in message)) {
      const waiter = this.#pending.get(message.id as number);
      this.#pending.delete(message.id as number);
      waiter?.resolve(message, arrivedAt);
    }
  }
}
