// Per-connection state the router needs: whether it has initialized, who it said it was,
// which notifications it opted out of, and how to write to it.
import { StaggeredOutput } from './staggered-output.js';
import type { WireMessage } from './transport/transport.js';

/** A connection's id, as the connection table assigns it. */
export type ConnectionId = number & { readonly __brand: 'ConnectionId' };

/** Writes one serialized message; returns false when the connection is gone or overloaded. */
export type LineSink = (message: WireMessage) => boolean;

export interface Connection {
  readonly id: ConnectionId;
  /** Writes now, after anything `sendLater` left queued for this connection. */
  readonly send: LineSink;
  /** Writes in a later event-loop iteration (staggered-output.ts), before any later `send`. */
  readonly sendLater: (message: WireMessage) => void;
  initialized: boolean;
  clientName: string | null;
  clientVersion: string | null;
  /** `capabilities.experimentalApi` from initialize: experimental fields are accepted. */
  experimentalApi: boolean;
  optOut: ReadonlySet<string>;
  inFlight: number;
  /** `initialize`'s params as the client sent them, replayed on the peer links opened for it. */
  initializeParams: unknown;
  /** Opened by another host of the fleet (a fleet token): what it asks is never forwarded again. */
  readonly fleetPeer: boolean;
}

export class ConnectionTable {
  readonly #connections = new Map<ConnectionId, Connection>();
  readonly #staggered = new StaggeredOutput<ConnectionId>();
  #nextId = 1;

  open(write: LineSink, options: { fleetPeer?: boolean } = {}): Connection {
    const staggered = this.#staggered;
    const id = this.#nextId++ as ConnectionId;
    const connection: Connection = {
      id,
      send: (message) => {
        staggered.catchUp(id);
        return write(message);
      },
      sendLater: (message) => staggered.later(id, write, message),
      initialized: false,
      clientName: null,
      clientVersion: null,
      experimentalApi: false,
      optOut: new Set(),
      inFlight: 0,
      initializeParams: null,
      fleetPeer: options.fleetPeer === true,
    };
    this.#connections.set(connection.id, connection);
    return connection;
  }

  get(id: ConnectionId): Connection | undefined {
    return this.#connections.get(id);
  }

  /** False once the connection closed: a request that finishes later must not subscribe it. */
  isOpen(id: ConnectionId): boolean {
    return this.#connections.has(id);
  }

  close(id: ConnectionId): void {
    this.#staggered.forget(id);
    this.#connections.delete(id);
  }

  /** Connections that completed `initialize`: the audience of broadcasts. */
  *initialized(): Iterable<Connection> {
    for (const connection of this.#connections.values()) if (connection.initialized) yield connection;
  }

  /** Requests still being handled, over every connection. */
  inFlightTotal(): number {
    let total = 0;
    for (const connection of this.#connections.values()) total += connection.inFlight;
    return total;
  }

  get size(): number {
    return this.#connections.size;
  }
}
