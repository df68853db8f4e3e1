// The router: one line in, at most one reply out. It parses the line as serde_json would
// (a large line arrives parsed, by the line-parser worker, with the same code),
// keeps only what the reference's untagged `JSONRPCMessage` would take as a request
// (everything else is dropped silently), decodes params, applies the initialize gate, and is
// the only place where a thrown error becomes a JSON-RPC error reply. Nothing thrown while
// handling a line escapes it: a bad line can cost a log line, never the process. In a fleet, a
// thread-scoped request for a thread another host owns is answered by that host instead
// (fleet/request-routing.ts decides, around the handler).
import type { Connection } from './connections.js';
import { asRpcError, deserializeError, notInitialized, overloaded, RpcError, serverDraining } from '../common/errors.js';
import type { HostContext } from './host-context.js';
import { METHODS } from './methods.js';
import { REFERENCE_CLIENT_METHODS } from './protocol/client-methods.js';
import { REFUSED_METHODS } from './refused-methods.js';
import { DecodeError, rejectWideIntegers, unknownVariant } from './protocol/decode.js';
import { requestOf, responseOf, type IncomingRequest, type RequestId } from './protocol/envelope.js';
import { parseLine, type LineOutcome } from '../common/line-outcome.js';
import type { LargeLineOutcome, ParseFailure } from './input/large-line-parser.js';
import { requestInHead } from './protocol/request-head.js';
import type { DroppedLine } from './transport/transport.js';
import type { RequestRouting, RoutedRequest } from './fleet/request-routing.js';

// What a forwarded request's promise resolves with: the owner's answer was already written.
const FORWARDED = Symbol('forwarded');

/** How a failed large-line parse is named in the log and the overload answer's detail. */
const PARSE_FAILURES: Record<ParseFailure, string> = { deadline: 'parse deadline', workerExited: 'parse worker exited', workerStuck: 'parse worker stuck' };

const INVALID_UTF8 = 'stream did not contain valid UTF-8';

export class Router {
  constructor(
    private readonly ctx: HostContext,
    /** Requests of one connection whose handler is still running; past it, -32001. */
    private readonly maxInFlight: number,
    /** On the PostgreSQL store with a fleet secret: which thread-scoped requests go to their thread's owner. */
    private readonly routing: RequestRouting | null = null,
  ) {}

  /** A line parsed here, on the main thread. */
  handleLine(connection: Connection, text: string): void {
    this.#handleOutcome(connection, parseLine(text));
  }

  /** A large line, parsed by the line-parser worker (or given up: see LargeLineParser). */
  handleLargeLine(connection: Connection, outcome: LargeLineOutcome): void {
    if (outcome.kind !== 'failed') this.#handleOutcome(connection, outcome);
    else this.#failedParse(connection, outcome);
  }

  #handleOutcome(connection: Connection, outcome: LineOutcome): void {
    try {
      if (outcome.kind === 'tooLarge') this.#tooLarge(connection, outcome.head, 'max JSON values', outcome.chars);
      else if (outcome.kind === 'syntaxError') this.#dropped(connection, outcome.reason, outcome.chars);
      else if (outcome.kind === 'invalidUtf8') this.#dropped(connection, INVALID_UTF8, 0);
      else {
        const request = requestOf(outcome.parsed);
        // Notifications (`initialized` or unknown) and requests whose id cannot be decoded get
        // no reply; a response answers a request this server sent (server-requests.ts).
        if (request !== null) this.#request(connection, request);
        else {
          const response = responseOf(outcome.parsed);
          if (response !== null) this.ctx.serverRequests.answer(connection.id, response);
        }
      }
    } catch (error) {
      this.ctx.log('error', 'failed to handle an input line', { connectionId: connection.id, error: stackOf(error) });
    }
  }

  // The worker died or overran its deadline with this line: answered as a line past a limit,
  // from its head, since its content is not known here.
  #failedParse(connection: Connection, { reason, head, bytes }: Extract<LargeLineOutcome, { kind: 'failed' }>): void {
    try {
      this.#tooLarge(connection, head.toString('utf8'), PARSE_FAILURES[reason], bytes);
    } catch (error) {
      this.ctx.log('error', 'failed to handle an input line', { connectionId: connection.id, error: stackOf(error) });
    }
  }

  /**
   * A line the transport could not deliver. One that was too long gets the overload error
   * when its first bytes show a request (the limit is `max_line_bytes`); anything else,
   * including a line that is not UTF-8, is dropped like any undecodable line.
   */
  handleDroppedLine(connection: Connection, event: DroppedLine): void {
    try {
      if (event.kind === 'invalidUtf8') {
        this.#dropped(connection, INVALID_UTF8, 0);
        return;
      }
      this.#tooLarge(connection, event.head?.toString('utf8') ?? '', 'max_line_bytes', event.bytes);
    } catch (error) {
      this.ctx.log('error', 'failed to handle a dropped line', { connectionId: connection.id, error: stackOf(error) });
    }
  }

  /** A line past a limit: the overload error when its head shows a request, else nothing. */
  #tooLarge(connection: Connection, head: string, limit: string, size: number): void {
    const request = requestInHead(head);
    this.ctx.log('warn', 'input line exceeds a limit', { connectionId: connection.id, limit, size, answered: request !== null });
    if (request !== null) this.ctx.outgoing.fail(connection.id, request.id, overloaded());
  }

  #dropped(connection: Connection, reason: string, chars: number): void {
    this.ctx.log('warn', 'Failed to deserialize JSONRPCMessage', { connectionId: connection.id, reason, chars });
  }

  #request(connection: Connection, { id, method, params }: IncomingRequest): void {
    const spec = METHODS.get(method);
    try {
      // The reference sheds load before looking at the request (a full ingress queue).
      if (connection.inFlight >= this.maxInFlight) throw overloaded();
      if (!spec) {
        const refusal = REFUSED_METHODS.get(method);
        if (refusal === undefined) throw deserializeError(unknownVariant(method, REFERENCE_CLIENT_METHODS).detail);
        throw connection.initialized ? refusal : notInitialized();
      }
      if (params === undefined && !spec.paramsOptional) throw deserializeError('missing field `params`');
      let decoded: unknown;
      try {
        if (params !== undefined) rejectWideIntegers(params);
        decoded = spec.decode(params);
      } catch (error) {
        if (error instanceof DecodeError) throw deserializeError(error.detail);
        throw error;
      }
      if (method !== 'initialize' && !connection.initialized) throw notInitialized();
      // During shutdown (SIGTERM with stdin still open) new work is refused, not half-started.
      if (this.ctx.draining) throw serverDraining();
      const routed: RoutedRequest = { connection, id, method, params, decoded };
      const forwarded = this.routing?.before(routed) ?? null;
      if (forwarded !== null) {
        this.#settleForwarded(routed, forwarded);
        return;
      }
      if (method === 'initialize' && !connection.initialized) connection.initializeParams = params ?? null;
      const effects: Array<() => void> = [];
      let outcome: unknown;
      try {
        outcome = spec.handle(this.ctx, connection, decoded, (effect) => effects.push(effect));
      } catch (error) {
        this.#failOrForward(routed, error);
        return;
      }
      if (outcome instanceof Promise) this.#settle(routed, outcome, effects);
      else this.#reply(connection, id, outcome, effects);
    } catch (error) {
      this.#fail(connection, id, method, error);
    }
  }

  /** A request answered later: by its handler's promise, or by the owner it was forwarded to (which writes the answer itself). */
  #settle(routed: RoutedRequest, outcome: Promise<unknown>, effects: Array<() => void>): void {
    const { connection, id, method } = routed;
    connection.inFlight += 1;
    outcome
      .then(
        (result) => {
          if (result !== FORWARDED) this.#reply(connection, id, result, effects);
        },
        (error: unknown) => this.#failOrForward(routed, error),
      )
      .finally(() => (connection.inFlight -= 1))
      .catch((error: unknown) => this.ctx.log('error', 'failed to answer a request', { method, error: stackOf(error) }));
  }

  // A thread-scoped request that failed here because another host owns the thread goes there (request-routing.ts).
  #failOrForward(routed: RoutedRequest, error: unknown): void {
    const forwarded = this.routing?.afterFailure(routed, error) ?? null;
    if (forwarded === null) this.#fail(routed.connection, routed.id, routed.method, error);
    else this.#settleForwarded(routed, forwarded);
  }

  // The owner's failure is the answer: never routed again (decoded names no thread then).
  #settleForwarded(routed: RoutedRequest, forwarded: Promise<void>): void {
    this.#settle({ ...routed, decoded: null }, forwarded.then(() => FORWARDED), []);
  }

  /** The connection closed: the peer links opened for it close too. */
  closed(connection: Connection): void {
    this.routing?.closed(connection);
  }

  #reply(connection: Connection, id: RequestId, result: unknown, effects: Array<() => void>): void {
    this.ctx.outgoing.reply(connection.id, id, result);
    // Effects run after the reply is queued (e.g. `thread/started` after thread/start's
    // response); one that throws is logged, since the request was already answered.
    for (const effect of effects) {
      try {
        effect();
      } catch (error) {
        this.ctx.log('error', 'after-reply effect failed', { connectionId: connection.id, error: stackOf(error) });
      }
    }
  }

  #fail(connection: Connection, id: RequestId, method: string, error: unknown): void {
    const rpcError = asRpcError(error, method);
    if (!(error instanceof RpcError)) this.ctx.log('error', 'request failed', { method, error: stackOf(error) });
    this.ctx.outgoing.fail(connection.id, id, rpcError);
  }
}

const stackOf = (error: unknown): string => (error instanceof Error ? (error.stack ?? error.message) : String(error));
