// A JSON-RPC client connection to the app server over any transport (message-transport.ts):
// requests matched to replies by id, an error reply thrown as RpcReplyError, notifications
// and server requests kept in an inbox to wait for by predicate. Every wait has a deadline,
// and every open wait fails at once when the peer goes away instead of at its deadline.
//
//   reader ──text──> receive: stamp, parse ──> onMessage(message, at)   (every message)
//                                         ├─ reply to a pending id ──> that request
//                                         ├─ server request, refusing ──> error reply
//                                         └─ anything else ──> inbox ──> waitFor(predicate)
import { performance } from 'node:perf_hooks';
import type { MessageTransport } from './message-transport.js';
import { MessageInbox } from './message-inbox.js';
import { isReply, isServerRequest, METHOD_NOT_FOUND, RpcReplyError, type Message } from './rpc-messages.js';

export const DEFAULT_DEADLINE_MS = 10_000;

export interface RpcConnectionOptions {
  /** Keep unclaimed messages for later waits (default true); false drops what nobody waits for. */
  keepUnclaimed?: boolean;
  /** Answer server requests with "method not found" instead of keeping them (default false). */
  refuseServerRequests?: boolean;
  /** Appended to a failed wait's error: the server's stderr, say. */
  diagnostics?: () => string;
}

/** A reply with the `performance.now()` at which its text was read. */
export interface TimedResult<T> {
  result: T;
  at: number;
}

type PendingReply = (reply: Message, at: number) => void;

export class RpcConnection {
  /** Sees every parsed message with its arrival time, before it is dispatched. */
  onMessage: (message: Message, at: number) => void = () => undefined;
  /** Server requests are answered by whoever reads `onMessage`: none is refused, whatever the options say. */
  servesRequests = false;
  /** Sees every text sent (`->`) and received (`<-`), before anything else is done with it. */
  trace: ((direction: '->' | '<-', text: string) => void) | null = null;
  /** Sees every received text that is not a JSON object. */
  onUnparsed: (text: string) => void = () => undefined;
  /** Resolves with why once the peer is gone (exited, disconnected). */
  readonly ended: Promise<string>;

  readonly #transport: MessageTransport;
  readonly #options: RpcConnectionOptions;
  readonly #inbox: MessageInbox;
  readonly #pending = new Map<string | number, PendingReply>();
  /** Fails every open wait at once when the peer goes away. */
  readonly #onClose = new Set<(why: string) => void>();
  #closedWhy: string | null = null;
  #nextId = 0;

  constructor(transport: MessageTransport, options: RpcConnectionOptions = {}) {
    this.#transport = transport;
    this.#options = options;
    this.#inbox = new MessageInbox(options.keepUnclaimed ?? true);
    this.ended = new Promise((resolve) => {
      transport.reader.listen(
        (text) => this.#receive(text),
        (why) => {
          this.#closedWhy = why;
          for (const fail of this.#onClose) fail(why);
          resolve(why);
        },
      );
    });
  }

  /** `initialize` with `params`, then the `initialized` notification, as every client starts; the result. */
  async initialize(params: Message, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Message> {
    const result = await this.request('initialize', params, deadlineMs);
    this.notify('initialized');
    return result;
  }

  /** Sends a request; resolves with its result, or throws RpcReplyError for an error reply. */
  async request<T = Message>(method: string, params?: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<T> {
    return (await this.requestTimed<T>(method, params, deadlineMs)).result;
  }

  /** As `request`, with the reply's arrival time (latency excludes the caller's own queueing). */
  requestTimed<T = Message>(method: string, params?: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<TimedResult<T>> {
    return this.prepare<T>(method, params, deadlineMs)();
  }

  /**
   * Serializes and frames a request now and returns what sends it, so that a multi-megabyte
   * request's JSON.stringify and encoding are not timed as the server's latency.
   */
  prepare<T = Message>(method: string, params?: unknown, deadlineMs = DEFAULT_DEADLINE_MS): () => Promise<TimedResult<T>> {
    const { id, text } = this.#requestText(method, params);
    const frame = this.#transport.writer.encode(text);
    return () => {
      const reply = this.#awaitReply(id, method, deadlineMs);
      this.trace?.('->', text);
      this.#transport.writer.writeEncoded(frame);
      return reply.then(({ result: message, at }) => {
        if ('error' in message) throw new RpcReplyError(message.error?.code, message.error?.message, message.error?.data);
        return { result: message.result as T, at };
      });
    };
  }

  /** Sends a request and resolves with the whole reply message, an error reply included. */
  async requestRaw(method: string, params?: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Message> {
    const { id, text } = this.#requestText(method, params);
    const reply = this.#awaitReply(id, method, deadlineMs);
    this.sendText(text);
    return (await reply).result;
  }

  notify(method: string, params?: unknown): void {
    this.sendText(JSON.stringify(params === undefined ? { method } : { method, params }));
  }

  /** Sends one message text as it is (hand-written or malformed input); its reply goes to the inbox. */
  sendText(text: string): void {
    this.trace?.('->', text);
    this.#transport.writer.write(text);
  }

  /** The first kept or future unclaimed message matching `test`, removed from the inbox. */
  waitFor(test: (message: Message) => boolean, deadlineMs = DEFAULT_DEADLINE_MS, label = 'message'): Promise<Message> {
    const { message, cancel } = this.#inbox.take(test);
    return this.within(message, deadlineMs, label, cancel);
  }

  /** The params of the first kept or future notification `method` whose params match `predicate`. */
  async waitForNotification(method: string, predicate: (params: Message) => boolean = () => true, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Message> {
    const test = (m: Message): boolean => m.method === method && !('id' in m) && predicate(m.params ?? {});
    return (await this.waitFor(test, deadlineMs, `notification ${method}`)).params ?? {};
  }

  /** Drops the kept unclaimed messages, e.g. between phases sharing one connection. */
  clearInbox(): void {
    this.#inbox.clear();
  }

  /**
   * `promise`, failed after `deadlineMs` or as soon as the peer is gone (`cancel` then withdraws
   * whatever would have settled it). The rejection is marked handled: a wait whose cause failed
   * is often never awaited, and whoever awaits it still sees the error.
   */
  within<T>(promise: Promise<T>, deadlineMs: number, label: string, cancel: () => void = () => undefined): Promise<T> {
    const bounded = new Promise<T>((resolve, reject) => {
      const fail = (why: string): void => {
        settle();
        cancel();
        const context = this.#options.diagnostics?.() ?? '';
        reject(new Error(`${label}: ${why}${context === '' ? '' : `; ${context}`}`));
      };
      const settle = (): void => {
        clearTimeout(timer);
        this.#onClose.delete(fail);
      };
      const timer = setTimeout(() => fail(`no answer within ${deadlineMs} ms`), deadlineMs);
      if (this.#closedWhy !== null) fail(this.#closedWhy);
      else this.#onClose.add(fail);
      promise.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
    bounded.catch(() => undefined);
    return bounded;
  }

  #requestText(method: string, params: unknown): { id: number; text: string } {
    const id = this.#nextId++;
    return { id, text: JSON.stringify(params === undefined ? { id, method } : { id, method, params }) };
  }

  #awaitReply(id: number, method: string, deadlineMs: number): Promise<TimedResult<Message>> {
    const reply = new Promise<TimedResult<Message>>((resolve) => this.#pending.set(id, (result, at) => resolve({ result, at })));
    return this.within(reply, deadlineMs, `reply to ${method} #${id}`, () => this.#pending.delete(id));
  }

  #receive(text: string): void {
    const at = performance.now();
    this.trace?.('<-', text);
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      this.onUnparsed(text);
      return;
    }
    if (typeof message !== 'object' || message === null) {
      this.onUnparsed(text); // JSON, but no message (a bare number, say)
      return;
    }
    this.onMessage(message, at);
    if (isReply(message)) {
      const pending = this.#pending.get(message.id);
      if (pending !== undefined) {
        this.#pending.delete(message.id);
        pending(message, at);
        return;
      }
    } else if (this.#options.refuseServerRequests && !this.servesRequests && isServerRequest(message)) {
      this.sendText(JSON.stringify({ id: message.id, error: { code: METHOD_NOT_FOUND, message: 'this client does not serve requests' } }));
      return;
    }
    this.#inbox.deliver(message);
  }
}
