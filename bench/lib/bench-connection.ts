// What every bench client does on top of the client library's connection (src/client), over
// stdio or a WebSocket: requests with the bench's deadlines, and notifications filed by
// (method, thread id) in a keyed buffer (notification-buffer.ts), so that 10,000 threads each
// waiting for its `thread/closed` cost a map lookup per message, not a scan of every waiter.
// Each message is stamped with its arrival time as its text is read, so latency excludes the
// client's own queueing.
import type { RpcConnection, TimedResult } from '../../src/client/rpc-connection.js';
import { NotificationBuffer, notificationKey, type Arrival, type Json } from './notification-buffer.js';

export type { Arrival, Json };
export { OVERLOADED, RpcReplyError } from '../../src/client/rpc-messages.js';

export const DEFAULT_DEADLINE_MS = 30_000;

export const INITIALIZE_PARAMS = {
  clientInfo: { name: 'codex-app-server-tests', title: null, version: '0.1.0' },
  capabilities: { experimentalApi: true },
};

export abstract class BenchConnection {
  readonly #notifications: NotificationBuffer;

  /**
   * `keepUnclaimed: false` drops a notification nobody waits for: a client among hundreds
   * (fanout) that only ever waits for what it is about to cause.
   */
  protected constructor(
    protected readonly rpc: RpcConnection,
    options: { keepUnclaimed: boolean },
  ) {
    this.#notifications = new NotificationBuffer(options);
    rpc.onMessage = (message, at) => {
      if ('method' in message && !('id' in message)) this.#notifications.deliver(String(message.method), (message.params ?? {}) as Json, at);
      else if ('method' in message) this.onServerRequest(message as Json, at);
    };
  }

  #onServerRequest: (request: Json, at: number) => void = () => undefined;

  protected onServerRequest(request: Json, at: number): void {
    this.#onServerRequest(request, at);
  }

  /** Serves the server's requests (tool calls, approvals) with `handler`, as they arrive, instead of refusing them. */
  serveRequests(handler: (request: Json, at: number) => void): void {
    this.#onServerRequest = handler;
    this.rpc.servesRequests = true;
  }

  /** Answers a request of the server's. */
  answer(id: unknown, result: unknown): void {
    this.rpc.sendText(JSON.stringify({ id, result }));
  }

  request<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<T> {
    return this.rpc.request<T>(method, params, deadlineMs);
  }

  /** Sends a request; resolves with its result and the reply's arrival time (`performance.now()`). */
  requestTimed<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<TimedResult<T>> {
    return this.rpc.requestTimed<T>(method, params, deadlineMs);
  }

  /** Serializes a request now and returns what sends it (see RpcConnection.prepare). */
  prepare<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): () => Promise<TimedResult<T>> {
    return this.rpc.prepare<T>(method, params, deadlineMs);
  }

  /**
   * The first buffered (when kept) or future notification `method` about `threadId`
   * (`params.threadId`, or `params.thread.id`). Register the wait before sending the request
   * that causes it when the arrival time matters. A wait whose cause then failed is never
   * awaited: its deadline must not crash the bench as an unhandled rejection, and the
   * connection sees to that; whoever awaits it still sees the error.
   */
  waitFor(method: string, threadId: string, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Arrival> {
    const { arrival, cancel } = this.#notifications.wait(notificationKey(method, threadId));
    return this.rpc.within(arrival, deadlineMs, `notification ${method} for ${threadId}`, cancel);
  }

  /** The first buffered notification `method` about `threadId`, taken; undefined when none arrived unclaimed. */
  tryTake(method: string, threadId: string): Arrival | undefined {
    return this.#notifications.tryTake(notificationKey(method, threadId));
  }

  /** Drops unclaimed notifications, e.g. between phases sharing one server. */
  clearBuffer(): void {
    this.#notifications.clear();
  }
}
