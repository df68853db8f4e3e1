// Which requests leave this host, decided around the local handler (the router's one hook):
// before it, a request for a thread this client already reaches through a peer link goes
// there; after it failed because another live host owns the thread (an acquisition that found
// the owner, or a turn for a thread not loaded here that the store says is loaded there), the
// request goes to that owner. Requests that came over a peer link never leave (hop limit 1):
// their failure names the owner as a hint instead. Reads (thread/read, turns, items) keep
// reading the store here, and connection-scoped and global methods never leave.
import type { JsonValue } from '../../common/json-text.js';
import { RpcError } from '../../common/errors.js';
import type { Connection } from '../connections.js';
import type { RequestId } from '../protocol/envelope.js';
import type { Forwarder } from './forwarder.js';
import { OwnedElsewhere, withOwnerHint } from './owned-elsewhere.js';

/** The thread-scoped methods a thread's owner answers. */
export const FORWARDED_METHODS: ReadonlySet<string> = new Set([
  'thread/resume',
  'thread/unsubscribe',
  'turn/start',
  'turn/interrupt',
  'turn/steer',
  'thread/compact/start',
  'thread/revert',
  'thread/queue/start',
  // Served from the shared store by any host, but the owner's clients hear of them only from
  // the owner: a client that reaches the thread through a peer link sends them there too.
  'thread/name/set',
  'thread/readState/update',
  'thread/metadata/update',
  'thread/queue/add',
  'thread/queue/update',
  'thread/queue/delete',
  'thread/queue/reorder',
]);

export interface RoutedRequest {
  connection: Connection;
  id: RequestId;
  method: string;
  /** As the client sent them, forwarded as they are. */
  params: JsonValue | undefined;
  /** As decoded for the method: the thread is named by its `threadId`. */
  decoded: unknown;
}

export class RequestRouting {
  constructor(private readonly forwarder: Forwarder) {}

  /** The forward of a request this client already sends to an owner; null to handle it here. */
  before(request: RoutedRequest): Promise<void> | null {
    const threadId = forwardable(request);
    if (threadId === null) return null;
    const endpoint = this.forwarder.routeOf(request.connection, threadId);
    return endpoint === null ? null : this.#forward(request, threadId, endpoint);
  }

  /** What follows the local handler's failure: a forward, an error with a hint, or null (answer `error`). */
  afterFailure(request: RoutedRequest, error: unknown): Promise<void> | null {
    if (!FORWARDED_METHODS.has(request.method) || !(error instanceof RpcError)) return null;
    const threadId = threadIdOf(request.decoded);
    if (threadId === null) return null;
    // Not loaded here: "not found" (a turn, a revert), "not loaded" (starting queued input).
    const notHere = request.method !== 'thread/resume' && (error.reason === 'threadNotFound' || error.reason === 'threadNotLoaded');
    if (!(error instanceof OwnedElsewhere) && !notHere) return null;
    if (request.connection.fleetPeer) return this.#hinted(threadId, error);
    if (error instanceof OwnedElsewhere) return error.ownerEndpoint === '' ? null : this.#forward(request, threadId, error.ownerEndpoint);
    return this.forwarder.otherOwner(threadId).then(
      (owner) => {
        if (owner === null) throw error;
        return this.#forward(request, threadId, owner);
      },
      () => {
        throw error;
      },
    );
  }

  /** The client connection closed: its peer links close too. */
  closed(connection: Connection): void {
    this.forwarder.connectionClosed(connection);
  }

  #forward({ connection, id, method, params }: RoutedRequest, threadId: string, endpoint: string): Promise<void> {
    return this.forwarder.forward(connection, id, method, params, threadId, endpoint);
  }

  // Over a peer link: the same error, with the owner the store names now, if there is one.
  async #hinted(threadId: string, error: RpcError): Promise<never> {
    if (error instanceof OwnedElsewhere && error.ownerEndpoint !== '') throw withOwnerHint(error, error.ownerEndpoint);
    const owner = await this.forwarder.otherOwner(threadId).catch(() => null);
    throw owner === null ? error : withOwnerHint(error, owner);
  }
}

function forwardable(request: RoutedRequest): string | null {
  if (request.connection.fleetPeer || !FORWARDED_METHODS.has(request.method)) return null;
  return threadIdOf(request.decoded);
}

const threadIdOf = (decoded: unknown): string | null => {
  const threadId = typeof decoded === 'object' && decoded !== null ? (decoded as { threadId?: unknown }).threadId : undefined;
  return typeof threadId === 'string' ? threadId : null;
};
