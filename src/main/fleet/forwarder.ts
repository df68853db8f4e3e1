// Any host serves any thread: a thread-scoped request for a thread another live host owns is
// sent to that owner over a peer link (peer-link.ts) and its answer comes back to the client
// unchanged, the request id mapped; the owner's notifications for the threads a client reached
// through a link stream back as they came. One link per (client connection, owner), closed
// with the client connection.
//
// Hop limit 1: a request that came over a peer link is never forwarded; its host answers with
// the owner it knows as a hint in the error (owned-elsewhere.ts). Given one, the forwarder
// re-reads the owner and tries again, at most twice; nothing else is retried. When a link
// drops, the client gets `thread/closed` for every thread it was subscribed to through it, and
// may resume (here, once the owner's lease lapsed).
import type { JsonValue } from '../../common/json-text.js';
import { stringifyJson } from '../../common/json-text.js';
import type { LogFn } from '../../common/log.js';
import { ErrorCode, RpcError, type ErrorCodeValue } from '../../common/errors.js';
import type { Connection, ConnectionId } from '../connections.js';
import type { Outgoing } from '../outgoing.js';
import type { ServerRequests } from '../server-requests/server-requests.js';
import { requestIdJson, type RequestId } from '../protocol/envelope.js';
import { signFleetToken } from './fleet-token.js';
import { ownerHintOf } from './owned-elsewhere.js';
import { PeerLink, PeerLinkError } from './peer-link.js';

// A forwarded request's answer: long enough for a cold resume on a busy owner; a dead owner's
// link drops sooner (its keepalive).
const FORWARD_DEADLINE_MS = 30_000;
// Tries after the first, each after re-reading the owner the previous one named.
const MAX_RETRIES = 2;

/** The live host that owns a thread, as the store says now; null when it is free, unknown or this host's. */
export type OwnerLookup = (threadId: string) => Promise<string | null>;

export interface ForwarderOptions {
  secret: Uint8Array;
  /** This host's registration (the token's subject); null while re-registering. */
  hostId: () => string | null;
  /** The endpoint of the live other host owning a thread, with a deadline. */
  otherOwner: OwnerLookup;
  outgoing: Outgoing;
  /** Where the owners' requests for this host's clients go out, and their answers come back. */
  serverRequests: ServerRequests;
  log: LogFn;
  /** How long a forwarded request may wait for its answer (default FORWARD_DEADLINE_MS). */
  forwardDeadlineMs?: number;
}

/** What one client connection reaches through peer links. */
interface ClientLinks {
  /** By owner endpoint; a promise while the link opens. */
  links: Map<string, Promise<PeerLink>>;
  /** Thread → the endpoint its requests go to. */
  routes: Map<string, string>;
  /** Threads the client subscribed to through a link (thread/resume), by endpoint. */
  subscribed: Map<string, Set<string>>;
}

export class Forwarder {
  readonly #options: ForwarderOptions;
  readonly #clients = new Map<ConnectionId, ClientLinks>();
  /** Closed client connections: a forward still under way for one opens no link. */
  readonly #closed = new WeakSet<Connection>();

  constructor(options: ForwarderOptions) {
    this.#options = options;
  }

  /** The owner this connection's requests for `threadId` go to, if they go to one. */
  routeOf(connection: Connection, threadId: string): string | null {
    return this.#clients.get(connection.id)?.routes.get(threadId) ?? null;
  }

  /** The live other host owning `threadId`, or null (free, unknown, or this host's). */
  otherOwner(threadId: string): Promise<string | null> {
    return this.#options.otherOwner(threadId);
  }

  /**
   * Sends one request to `endpoint` for the client and writes the owner's answer to it. Resolves
   * once answered; rejects with the RpcError to answer (the owner's own, or what failed).
   */
  async forward(connection: Connection, id: RequestId, method: string, params: JsonValue | undefined, threadId: string, endpoint: string): Promise<void> {
    const paramsJson = params === undefined ? 'null' : stringifyJson(params);
    let target = endpoint;
    for (let retry = 0; ; retry += 1) {
      try {
        const link = await this.#linkTo(connection, target);
        await link.request(method, paramsJson, this.#options.forwardDeadlineMs ?? FORWARD_DEADLINE_MS, (resultJson) => this.#answered(connection, id, method, threadId, target, resultJson));
        return;
      } catch (error) {
        if (!(error instanceof PeerLinkError)) throw error;
        const hinted = ownerHintOf(error.rpcError?.data);
        if (hinted === null) throw failure(error, method, threadId, target);
        if (retry === MAX_RETRIES) {
          throw new RpcError(ErrorCode.InvalidRequest, `${method} for thread ${threadId}: the host at ${target} no longer owns it (it names ${hinted}), after ${MAX_RETRIES} retries`);
        }
        const owner = await this.#options.otherOwner(threadId).catch((lookup: unknown) => {
          throw new RpcError(ErrorCode.InternalError, `${method} for thread ${threadId}: the host at ${target} no longer owns it, and the thread store could not say who does: ${String(lookup)}`);
        });
        if (owner === null) throw new RpcError(ErrorCode.InvalidRequest, `${method} for thread ${threadId}: the host at ${target} no longer owns it and no other live host does; retry thread/resume to take it here`);
        target = owner;
      }
    }
  }

  /** The client connection closed: its links go with it. */
  connectionClosed(connection: Connection): void {
    this.#closed.add(connection);
    const client = this.#clients.get(connection.id);
    if (client === undefined) return;
    this.#clients.delete(connection.id);
    for (const opening of client.links.values()) void opening.then((link) => link.close('its client connection closed'), () => undefined);
  }

  #linkTo(connection: Connection, endpoint: string): Promise<PeerLink> {
    if (this.#closed.has(connection)) return Promise.reject(new PeerLinkError('its client connection closed'));
    const client = this.#clientOf(connection.id);
    const known = client.links.get(endpoint);
    if (known !== undefined) return known;
    const opening = this.#open(connection, endpoint);
    client.links.set(endpoint, opening);
    // A link that failed to open is forgotten, so the next request tries afresh.
    opening.catch(() => client.links.get(endpoint) === opening && client.links.delete(endpoint));
    return opening;
  }

  async #open(connection: Connection, endpoint: string): Promise<PeerLink> {
    const { secret, hostId, log } = this.#options;
    const token = await signFleetToken(secret, hostId() ?? 'unregistered', Math.floor(Date.now() / 1000));
    const link = await PeerLink.open(
      endpoint,
      token,
      connection.initializeParams,
      {
        notification: (method, params, text) => this.#notified(connection, endpoint, method, params, text),
        // The owner asks the client (a tool call, an approval): relayed, and the answer taken back.
        serverRequest: (ownerId, method, params) =>
          this.#options.serverRequests.relay(connection.id, method, params, (answer) =>
            void this.#linkTo(connection, endpoint).then(
              (link) => link.answerRequest(ownerId, answer.kind === 'result' ? { result: answer.result } : { error: answer.error }),
              () => undefined,
            ),
          ),
        closed: (reason) => this.#linkClosed(connection, endpoint, reason),
      },
      log,
    );
    // The client went while the link opened: connectionClosed found only its promise.
    if (this.#closed.has(connection)) link.close('its client connection closed');
    return link;
  }

  #clientOf(id: ConnectionId): ClientLinks {
    let client = this.#clients.get(id);
    if (client === undefined) this.#clients.set(id, (client = { links: new Map(), routes: new Map(), subscribed: new Map() }));
    return client;
  }

  // Runs as the owner's answer arrives, before its next message: the client sees them in its order.
  #answered(connection: Connection, id: RequestId, method: string, threadId: string, endpoint: string, resultJson: string): void {
    const client = this.#clientOf(connection.id);
    if (method === 'thread/unsubscribe') {
      client.subscribed.get(endpoint)?.delete(threadId);
      client.routes.delete(threadId);
    } else {
      client.routes.set(threadId, endpoint);
      if (method === 'thread/resume') {
        let threads = client.subscribed.get(endpoint);
        if (threads === undefined) client.subscribed.set(endpoint, (threads = new Set()));
        threads.add(threadId);
      }
    }
    connection.send(`{"id":${requestIdJson(id)},"result":${resultJson}}`);
  }

  #notified(connection: Connection, endpoint: string, method: string, params: unknown, text: string): void {
    const client = this.#clients.get(connection.id);
    if (client === undefined) return;
    // What concerns another thread (the owner's broadcasts: thread/started, …) is its own clients'
    // business; what names no thread (a deprecation notice answering a request) is this client's.
    const threadId = threadNamedBy(params);
    if (threadId !== null && client.routes.get(threadId) !== endpoint) return;
    connection.send(text);
    if (method === 'thread/closed' && threadId !== null) {
      client.routes.delete(threadId);
      client.subscribed.get(endpoint)?.delete(threadId);
    }
  }

  #linkClosed(connection: Connection, endpoint: string, reason: string): void {
    const client = this.#clients.get(connection.id);
    if (client === undefined) return;
    client.links.delete(endpoint);
    for (const [threadId, routed] of client.routes) if (routed === endpoint) client.routes.delete(threadId);
    const threads = client.subscribed.get(endpoint) ?? new Set<string>();
    client.subscribed.delete(endpoint);
    if (threads.size > 0) this.#options.log('warn', 'lost the link to the owner of forwarded threads', { endpoint, reason, threads: [...threads] });
    for (const threadId of threads) this.#options.outgoing.notify(connection.id, 'thread/closed', { threadId });
  }
}

/** The thread a notification is about: `threadId`, or a `thread` object's id; null for none. */
function threadNamedBy(params: unknown): string | null {
  if (typeof params !== 'object' || params === null) return null;
  const { threadId, thread } = params as { threadId?: unknown; thread?: { id?: unknown } };
  if (typeof threadId === 'string') return threadId;
  return typeof thread === 'object' && thread !== null && typeof thread.id === 'string' ? thread.id : null;
}

/** The RpcError a failed forward answers: the owner's own error as it gave it, or what failed, naming the owner. */
function failure(error: PeerLinkError, method: string, threadId: string, endpoint: string): RpcError {
  if (error.rpcError !== null) return new RpcError(error.rpcError.code as ErrorCodeValue, error.rpcError.message, error.rpcError.data);
  return new RpcError(ErrorCode.InternalError, `${method} for thread ${threadId}: its owner, the host at ${endpoint}, could not be reached: ${error.message}`);
}
