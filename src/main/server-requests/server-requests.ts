// Requests the server sends to its clients (`item/tool/call`, approvals, elicitations) and the
// answers that come back. A request belongs to a thread's turn and goes to every connection
// subscribed to the thread, each under its own id (a connection's requests are numbered from
// 0, as the reference numbers them); the first answer settles it, and any later answer, or one
// for an id never sent, is logged and dropped, as the reference drops it.
//
// A request whose every recipient disconnected waits a grace period (`tool_call_grace_ms`)
// for a client to subscribe to the thread again, and is sent to it: the turn goes on. Past the
// grace it is settled as `disconnected`, which each caller turns into what the reference tells
// the model when its client is gone.
import type { Clock } from '../../common/clock.js';
import type { LogFn } from '../../common/log.js';
import type { ConnectionId, ConnectionTable } from '../connections.js';
import type { RequestId } from '../protocol/envelope.js';
import { requestIdJson } from '../protocol/envelope.js';

/** Who a request is for: the thread and turn it belongs to. */
export interface RequestOwner {
  threadId: string;
  turnId: string;
}

/** How a request was settled. */
export type ClientAnswer =
  | { kind: 'result'; result: unknown }
  | { kind: 'error'; error: unknown }
  /** Its turn ended first (interrupt, failure, unload): nobody answers now. */
  | { kind: 'cancelled' }
  /** Every recipient disconnected and none came back within the grace period. */
  | { kind: 'disconnected' };

/** An answer line, as the router decodes it. */
export interface ClientResponse {
  id: RequestId;
  result?: unknown;
  error?: unknown;
}

interface Pending {
  owner: RequestOwner;
  method: string;
  /** `params` serialized once, for every recipient and for one that subscribes during the grace. */
  paramsJson: string;
  /** Each recipient's id for this request: the reference numbers a connection's requests from 0. */
  recipients: Map<ConnectionId, number>;
  settle: (answer: ClientAnswer) => void;
  /** Its recipients are told `serverRequest/resolved` once a client answered (approvals). */
  announceResolved: boolean;
  graceTimer: unknown;
  settled: boolean;
}

export interface ServerRequestsOptions {
  connections: ConnectionTable;
  log: LogFn;
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  graceMs: number;
  /** Where `serverRequest/resolved` goes out (Outgoing's notify); without it none is sent. */
  notify?: (connection: ConnectionId, method: string, params: unknown) => void;
}

/** How a request is sent. */
export interface SendOptions {
  /** Tell its recipients `serverRequest/resolved` after the answer, as the reference does for approvals. */
  announceResolved?: boolean;
}

/** A request on its way: a handle to stop waiting for it. */
export interface SentRequest {
  cancel(): void;
}

/** The thread and turn a request's params name (a relayed one's: every server request names them). */
function ownerNamedBy(params: unknown): RequestOwner {
  const named = (params ?? {}) as { threadId?: unknown; turnId?: unknown };
  return { threadId: typeof named.threadId === 'string' ? named.threadId : '', turnId: typeof named.turnId === 'string' ? named.turnId : '' };
}

export class ServerRequests {
  readonly #options: ServerRequestsOptions;
  /** Pending requests by recipient, then by the id that recipient knows them by. */
  readonly #byConnection = new Map<ConnectionId, Map<number, Pending>>();
  readonly #nextIds = new Map<ConnectionId, number>();
  readonly #pending = new Set<Pending>();

  constructor(options: ServerRequestsOptions) {
    this.#options = options;
  }

  /** Pending requests, for the idle rule and tests. */
  get size(): number {
    return this.#pending.size;
  }

  /** Whether a turn of this thread waits for a client's answer. */
  waitsOn(threadId: string): boolean {
    for (const pending of this.#pending) if (pending.owner.threadId === threadId) return true;
    return false;
  }

  /**
   * Sends `method` to `recipients` (the thread's subscribers); `settle` is called, once and at
   * once (so what follows goes out before anything later), with the first answer. With no
   * recipient open, the grace period starts at once.
   */
  send(
    recipients: Iterable<ConnectionId>,
    method: string,
    params: unknown,
    owner: RequestOwner,
    settle: (answer: ClientAnswer) => void,
    options: SendOptions = {},
  ): SentRequest {
    const announceResolved = options.announceResolved === true;
    const pending: Pending = { owner, method, paramsJson: JSON.stringify(params), recipients: new Map(), settle, announceResolved, graceTimer: null, settled: false };
    this.#pending.add(pending);
    for (const connection of recipients) this.#sendTo(pending, connection);
    if (pending.recipients.size === 0) this.#startGrace(pending);
    return { cancel: () => this.#settle(pending, { kind: 'cancelled' }) };
  }

  /**
   * A response line from `connection`. The first answer settles the request; an answer for an
   * id this connection was never sent, or one already settled, is logged and dropped, as the
   * reference drops it.
   */
  answer(connection: ConnectionId, response: ClientResponse): void {
    const id = typeof response.id === 'number' ? response.id : Number.NaN;
    const pending = this.#byConnection.get(connection)?.get(id);
    if (pending === undefined) {
      this.#options.log('warn', 'dropped a response to no pending server request', { connectionId: connection, requestId: requestIdJson(response.id) });
      return;
    }
    if (response.error !== undefined) this.#settle(pending, { kind: 'error', error: response.error });
    else this.#settle(pending, { kind: 'result', result: response.result ?? null });
  }

  /**
   * A request another host of the fleet sent for a thread it owns, reaching this host's client
   * over a peer link (fleet/forwarder.ts): it goes to `connection` under an id of this
   * connection's own sequence, and the client's answer goes to `answered`, for the owner. The
   * owner keeps the turn's wait and its deadlines; here it ends with the answer, or silently
   * when the client goes (the link closes with it, and the owner sees that).
   */
  relay(connection: ConnectionId, method: string, params: unknown, answered: (answer: Extract<ClientAnswer, { kind: 'result' | 'error' }>) => void): void {
    const owner = ownerNamedBy(params);
    this.send([connection], method, params, owner, (answer) => {
      if (answer.kind === 'result' || answer.kind === 'error') answered(answer);
    });
  }

  /** The connection closed: requests it was the last open recipient of start their grace. */
  connectionClosed(connection: ConnectionId): void {
    const mine = this.#byConnection.get(connection);
    this.#byConnection.delete(connection);
    this.#nextIds.delete(connection);
    for (const pending of mine?.values() ?? []) {
      pending.recipients.delete(connection);
      if (pending.recipients.size === 0) this.#startGrace(pending);
    }
  }

  /** `connection` subscribed to the thread: requests of its turns still waiting are sent to it too. */
  subscribed(threadId: string, connection: ConnectionId): void {
    for (const pending of this.#pending) {
      if (pending.owner.threadId === threadId && !pending.recipients.has(connection)) this.#sendTo(pending, connection);
    }
  }

  /** The turn ended (or its thread unloads; `turnId` null): what it still waits for is cancelled. */
  cancelTurn(threadId: string, turnId: string | null): void {
    for (const pending of [...this.#pending]) {
      if (pending.owner.threadId !== threadId || (turnId !== null && pending.owner.turnId !== turnId)) continue;
      this.#settle(pending, { kind: 'cancelled' });
    }
  }

  /** Host shutdown: every request is cancelled. */
  close(): void {
    for (const pending of [...this.#pending]) this.#settle(pending, { kind: 'cancelled' });
  }

  #sendTo(pending: Pending, connection: ConnectionId): void {
    const target = this.#options.connections.get(connection);
    if (target === undefined || !target.initialized) return;
    const id = this.#nextIds.get(connection) ?? 0;
    this.#nextIds.set(connection, id + 1);
    pending.recipients.set(connection, id);
    let mine = this.#byConnection.get(connection);
    if (mine === undefined) this.#byConnection.set(connection, (mine = new Map()));
    mine.set(id, pending);
    if (pending.graceTimer !== null) {
      this.#options.clock.clearTimeout(pending.graceTimer);
      pending.graceTimer = null;
    }
    // The reference's key order, and no `jsonrpc` member (protocol.md).
    target.send(`{"method":${JSON.stringify(pending.method)},"id":${id},"params":${pending.paramsJson}}`);
  }

  #startGrace(pending: Pending): void {
    if (pending.graceTimer !== null || pending.settled) return;
    pending.graceTimer = this.#options.clock.setTimeout(() => {
      pending.graceTimer = null;
      if (pending.recipients.size === 0) this.#settle(pending, { kind: 'disconnected' });
    }, this.#options.graceMs);
  }

  #forget(pending: Pending, connection: ConnectionId): void {
    const id = pending.recipients.get(connection);
    if (id === undefined) return;
    pending.recipients.delete(connection);
    this.#byConnection.get(connection)?.delete(id);
  }

  // The reference tells nobody a tool call is settled; an approval's recipients hear
  // `serverRequest/resolved` (each under its own id) before what the answer leads to.
  #settle(pending: Pending, answer: ClientAnswer): void {
    if (pending.settled) return;
    pending.settled = true;
    this.#pending.delete(pending);
    if (pending.graceTimer !== null) this.#options.clock.clearTimeout(pending.graceTimer);
    const notify = this.#options.notify;
    if (pending.announceResolved && notify !== undefined && (answer.kind === 'result' || answer.kind === 'error')) {
      for (const [connection, requestId] of pending.recipients) notify(connection, 'serverRequest/resolved', { threadId: pending.owner.threadId, requestId });
    }
    for (const connection of [...pending.recipients.keys()]) this.#forget(pending, connection);
    pending.settle(answer);
  }
}
