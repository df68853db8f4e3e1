// Everything the server writes goes through here: replies to one request, notifications to
// one connection, to a thread's subscribers, or to every initialized connection. Each
// message is serialized once however many connections receive it, with the key order the
// reference writes (`{"id","result"}`, `{"error","id"}`, `{"method","params","emittedAtMs"}`).
// Ids are echoed exactly as they arrived, including integers beyond 2^53.
import type { Connection, ConnectionId, ConnectionTable } from './connections.js';
import type { RpcError } from '../common/errors.js';
import { requestIdJson, type RequestId } from './protocol/envelope.js';
import { EncodedJson, stringifyWithEncoded } from './protocol/encoded-json.js';
import type { WireMessage } from './transport/transport.js';
import { STAGGER_CHUNK } from './staggered-output.js';

export type { RequestId };

const CLOSE_BRACE = Buffer.from('}');

export class Outgoing {
  constructor(
    private readonly connections: ConnectionTable,
    private readonly now: () => number = Date.now,
  ) {}

  reply(connection: ConnectionId, id: RequestId, result: unknown): void {
    const target = this.connections.get(connection);
    if (target === undefined) return;
    const head = `{"id":${requestIdJson(id)},"result":`;
    if (result instanceof EncodedJson && result.text !== null) {
      target.send(`${head}${result.text}}`);
      return;
    }
    // A handler that returns nothing still answers with a JSON value, never a bare `{"id"}`. A
    // result serialized elsewhere (stored history, by its worker: an EncodedJson, whole or
    // within) goes out as its bytes between the envelope's, never decoded or copied here.
    const body = stringifyWithEncoded(result ?? null);
    target.send(typeof body === 'string' ? `${head}${body}}` : [Buffer.from(head), ...body, CLOSE_BRACE]);
  }

  fail(connection: ConnectionId, id: RequestId, error: RpcError): void {
    this.connections.get(connection)?.send(`{"error":${JSON.stringify(error.toJSON())},"id":${requestIdJson(id)}}`);
  }

  /** A notification to one connection (initialized or not: the caller decides). */
  notify(connection: ConnectionId, method: string, params: unknown): void {
    const target = this.connections.get(connection);
    if (target && !target.optOut.has(method)) target.send(this.#notification(method, params));
  }

  /** A notification to the given connections that have initialized. */
  notifyMany(connections: Iterable<ConnectionId>, method: string, params: unknown): void {
    this.#fanOut(this.#initialized(connections), method, params);
  }

  /** A notification to every initialized connection. */
  broadcast(method: string, params: unknown): void {
    this.#fanOut(this.connections.initialized(), method, params);
  }

  *#initialized(ids: Iterable<ConnectionId>): Iterable<Connection> {
    for (const id of ids) {
      const target = this.connections.get(id);
      if (target?.initialized) yield target;
    }
  }

  // Serialized once for all; written to the first STAGGER_CHUNK now and to the others in later
  // iterations (staggered-output.ts).
  #fanOut(targets: Iterable<Connection>, method: string, params: unknown): void {
    const message = new SharedMessage(() => this.#notification(method, params));
    let written = 0;
    for (const target of targets) {
      if (target.optOut.has(method)) continue;
      if (written++ < STAGGER_CHUNK) target.send(message.next());
      else target.sendLater(message.next());
    }
  }

  #notification(method: string, params: unknown): WireMessage {
    return stringifyWithEncoded({ method, params, emittedAtMs: this.now() });
  }
}

/**
 * One message for several connections: serialized for the first (and only then, so a
 * notification nobody receives costs nothing), encoded to UTF-8 once from the second on, so
 * two hundred receivers do not encode it two hundred times. A message serialized straight to
 * bytes (it carried EncodedJson) is those bytes for everyone.
 */
class SharedMessage {
  #first: WireMessage | null = null;
  #bytes: Exclude<WireMessage, string> | null = null;

  constructor(private readonly serialize: () => WireMessage) {}

  next(): WireMessage {
    if (this.#first === null) return (this.#first = this.serialize());
    return (this.#bytes ??= typeof this.#first === 'string' ? Buffer.from(this.#first) : this.#first);
  }
}
