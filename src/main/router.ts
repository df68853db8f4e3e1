// The router: one line in, at most one reply out. It classifies the envelope the way the
// reference's untagged `JSONRPCMessage` does (request, notification, response, error; anything
// else is dropped silently), decodes params, applies the initialize gate, and is the only
// place where a thrown error becomes a JSON-RPC error reply.
import type { Connection } from './connections.js';
import { asRpcError, deserializeError, notInitialized, overloaded, RpcError } from './errors.js';
import type { HostContext } from './host-context.js';
import { METHODS } from './methods.js';
import { REFERENCE_CLIENT_METHODS } from './protocol/client-methods.js';
import { DecodeError, unknownVariant } from './protocol/decode.js';
import type { RequestId } from './outgoing.js';

const I64_LIMIT = 2 ** 63;

export class Router {
  constructor(
    private readonly ctx: HostContext,
    private readonly maxInFlight: number,
  ) {}

  handleLine(connection: Connection, text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.ctx.log('warn', 'Failed to deserialize JSONRPCMessage: not JSON', { connectionId: connection.id, bytes: text.length });
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.ctx.log('warn', 'Failed to deserialize JSONRPCMessage: not an object', { connectionId: connection.id });
      return;
    }
    const fields = message as Record<string, unknown>;
    if (typeof fields.method === 'string') {
      if (isRequestId(fields.id)) this.#request(connection, fields.id, fields.method, fields);
      // Anything else with a method is a notification: `initialized`, or unknown and ignored.
      return;
    }
    // Responses and errors to requests we never sent, and shapeless objects, are dropped.
  }

  #request(connection: Connection, id: RequestId, method: string, fields: Record<string, unknown>): void {
    const { ctx } = this;
    const spec = METHODS.get(method);
    try {
      if (!spec) {
        if (REFERENCE_CLIENT_METHODS.includes(method)) throw new RpcError(-32601, `method not supported by thread-host: ${method}`);
        throw deserializeError(unknownVariant(method, REFERENCE_CLIENT_METHODS).detail);
      }
      if (fields.params === undefined || fields.params === null) throw deserializeError('missing field `params`');
      let params: unknown;
      try {
        params = spec.decode(fields.params);
      } catch (error) {
        if (error instanceof DecodeError) throw deserializeError(error.detail);
        throw error;
      }
      if (method !== 'initialize' && !connection.initialized) throw notInitialized();
      if (connection.inFlight >= this.maxInFlight) throw overloaded();
      const effects: Array<() => void> = [];
      const outcome = spec.handle(ctx, connection, params, (effect) => effects.push(effect));
      if (outcome instanceof Promise) {
        connection.inFlight += 1;
        outcome.then(
          (result) => this.#reply(connection, id, result, effects),
          (error: unknown) => this.#fail(connection, id, method, error),
        ).finally(() => (connection.inFlight -= 1));
      } else {
        this.#reply(connection, id, outcome, effects);
      }
    } catch (error) {
      this.#fail(connection, id, method, error);
    }
  }

  #reply(connection: Connection, id: RequestId, result: unknown, effects: Array<() => void>): void {
    this.ctx.outgoing.reply(connection.id, id, result);
    for (const effect of effects) effect();
  }

  #fail(connection: Connection, id: RequestId, method: string, error: unknown): void {
    const rpcError = asRpcError(error, method);
    if (!(error instanceof RpcError)) {
      this.ctx.log('error', 'request failed', { method, error: error instanceof Error ? error.stack : String(error) });
    }
    this.ctx.outgoing.fail(connection.id, id, rpcError);
  }
}

/** A `RequestId`: a string, or an integer that fits i64. */
function isRequestId(value: unknown): value is RequestId {
  if (typeof value === 'string') return true;
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < I64_LIMIT;
}
