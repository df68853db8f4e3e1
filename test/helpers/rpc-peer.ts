// The JSON-RPC side of a test client, whatever carries the messages (a child's stdio, a
// WebSocket): requests matched to replies, notifications waited for, unmatched messages
// buffered, and every message the server sends validated against the official schema.
import { SchemaValidator } from './schema-validator.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
const validator = new SchemaValidator();

export type Message = Record<string, any>;

/** An error reply, thrown by `request`. */
export class RpcReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const TEST_CLIENT_INFO = { name: 'codex-app-server-tests', title: null, version: '0.1.0' };

export abstract class RpcPeer {
  readonly received: Message[] = [];
  readonly schemaProblems: string[] = [];
  #buffer: Message[] = [];
  #waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  #pendingMethods = new Map<string | number, string>();
  #nextId = 0;

  /** Writes one serialized message to the server. */
  protected abstract write(text: string): void;
  /** Extra context for a timeout message (the server's stderr). */
  protected abstract diagnostics(): string;

  /** `initialize` then `initialized`, as a client of the reference starts. */
  async initialize(clientInfo: Message = TEST_CLIENT_INFO): Promise<Message> {
    const result = await this.request('initialize', { clientInfo, capabilities: { experimentalApi: true } });
    this.notify('initialized');
    return result;
  }

  /** Sends a request and resolves with its result; an error reply rejects with RpcReplyError. */
  async request<T = Message>(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<T> {
    const reply = await this.requestRaw(method, params, timeoutMs);
    if ('error' in reply) throw new RpcReplyError(reply.error.code, reply.error.message, reply.error.data);
    return reply.result as T;
  }

  /** Sends a request and resolves with the whole reply message. */
  requestRaw(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    const id = this.#nextId++;
    const message: Message = params === undefined ? { id, method } : { id, method, params };
    this.#pendingMethods.set(id, method);
    const reply = this.waitFor((m) => m.id === id && !('method' in m), timeoutMs, `reply to ${method} #${id}`);
    this.sendLine(JSON.stringify(message));
    return reply;
  }

  notify(method: string, params?: unknown): void {
    this.sendLine(JSON.stringify(params === undefined ? { method } : { method, params }));
  }

  sendLine(line: string): void {
    // Remember the method of hand-written requests too, so their replies are validated.
    try {
      const parsed = JSON.parse(line) as Message;
      if (parsed && typeof parsed.method === 'string' && (typeof parsed.id === 'string' || Number.isInteger(parsed.id))) {
        this.#pendingMethods.set(parsed.id, parsed.method);
      }
    } catch {
      // Not JSON: sent on purpose by a test of malformed input.
    }
    this.write(line);
  }

  waitForNotification(method: string, predicate: (params: Message) => boolean = () => true, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    return this.waitFor((m) => m.method === method && predicate(m.params ?? {}), timeoutMs, `notification ${method}`).then((m) => m.params);
  }

  /** Resolves with the first buffered or future message matching `test`, removing it from the buffer. */
  waitFor(test: (m: Message) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS, label = 'message'): Promise<Message> {
    const index = this.#buffer.findIndex(test);
    if (index >= 0) return Promise.resolve(this.#buffer.splice(index, 1)[0]!);
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (m: Message) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${label}; ${this.diagnostics()}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Everything received so far whose method matches, in order (buffered or consumed). */
  notifications(method?: string): Message[] {
    return this.received.filter((m) => 'method' in m && (method === undefined || m.method === method));
  }

  /** Feeds one message text received from the server. */
  protected receive(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line);
    } catch {
      this.schemaProblems.push(`not JSON: ${line.slice(0, 200)}`);
      return;
    }
    this.received.push(message);
    const requestMethod = 'method' in message ? undefined : this.#pendingMethods.get(message.id);
    if (!('method' in message)) this.#pendingMethods.delete(message.id);
    for (const problem of validator.check(message, requestMethod)) this.schemaProblems.push(problem);
    const index = this.#waiters.findIndex((w) => w.test(message));
    if (index >= 0) this.#waiters.splice(index, 1)[0]!.resolve(message);
    else this.#buffer.push(message);
  }
}
