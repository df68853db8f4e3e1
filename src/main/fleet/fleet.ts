// A host's place in a fleet on the PostgreSQL thread store (thread_store = "postgres"): the
// schema brought up to date, this host registered with a lease, thread ownership and the store
// for the request handlers. Loaded only by a host configured for that store (app-server.ts
// imports it dynamically): a files host never loads `pg`.
import type { LogFn } from '../../common/log.js';
import { openPostgresPool } from '../../common/postgres/postgres-connection.js';
import { migrateSchema, SchemaTooNewError } from '../../common/postgres/schema-migrations.js';
import type { PostgresStoreConfig } from '../config/thread-store-config.js';
import { PostgresWriterLocks } from '../store/postgres/postgres-writer-locks.js';
import type { LockLoss } from '../store/writer-lock-backend.js';
import { StartupError } from '../startup-error.js';
import type { ListenTarget } from '../transport/listen-url.js';
import { ownerOf } from '../../common/postgres/thread-ownership.js';
import type { Outgoing } from '../outgoing.js';
import type { WsAuthPolicy } from '../transport/ws-auth-options.js';
import { fleetTokenPolicy, readFleetSecret } from './fleet-token.js';
import { Forwarder } from './forwarder.js';
import { HostMembership } from './host-membership.js';
import { randomUUID } from 'node:crypto';
import { PostgresQueues } from '../store/postgres/postgres-queues.js';
import { PostgresReadStates } from '../store/postgres/postgres-read-states.js';
import { QueueChangeListener } from '../store/postgres/queue-change-listener.js';
import { PostgresThreadMetadata } from '../store/postgres/postgres-thread-metadata.js';
import { PostgresThreadStore } from '../store/postgres/postgres-threads.js';
import { RequestRouting } from './request-routing.js';

// The main thread's statements: acquisitions, releases, renewals and lookups, a few at a time.
const MAIN_CONNECTIONS = 4;
// How long shutdown gives the retirement of this host's row (its threads are free at once after it).
const LEAVE_DEADLINE_MS = 2_000;
// Who owns a thread, asked when a request may have to be forwarded; past it, the request is answered here.
const OWNER_LOOKUP_DEADLINE_MS = 5_000;
// Recording the bound listener's URL; past it, the host serves with no endpoint peers can use.
const ADVERTISE_DEADLINE_MS = 5_000;

export interface Fleet {
  store: PostgresThreadStore;
  /** Read states and metadata, in the threads rows every host shares. */
  readStates: PostgresReadStates;
  metadata: PostgresThreadMetadata;
  /** Queued input, in the table every host shares. */
  queues: PostgresQueues;
  /** Starts hearing of queue changes other hosts make (null: any thread's queue may have changed). */
  watchQueues(onChange: (threadId: string | null) => void): void;
  locks: PostgresWriterLocks;
  /** Set by the host once built: the threads lost when this host's lease lapsed. */
  onLost: (loss: LockLoss) => void;
  /** How this host's listener recognizes its peers; null without `fleet_secret_file`. */
  peerAuth: WsAuthPolicy | null;
  /** Which requests go to their thread's owner; null without `fleet_secret_file` (nothing is forwarded). */
  routing(outgoing: Outgoing): RequestRouting | null;
  /** The listener is bound at `url`: peers are told (when the advertised URL is the listener's). */
  listening(url: string): Promise<void>;
}

/** Joins the fleet before the host serves; a store it cannot use stops the start with a clear message. */
export async function joinFleet(config: PostgresStoreConfig, listen: ListenTarget, log: LogFn): Promise<Fleet> {
  const secret = config.secretFile === null ? null : readFleetSecret(config.secretFile);
  try {
    await migrateSchema(config.connection);
  } catch (error) {
    if (error instanceof SchemaTooNewError) throw new StartupError(error.message);
    throw new StartupError(`cannot use the PostgreSQL thread store: ${(error as Error).message}`);
  }
  const pool = openPostgresPool(config.connection, { max: MAIN_CONNECTIONS, name: 'main', log });
  let fleet!: Fleet;
  const membership = await HostMembership.join({
    pool,
    endpoint: advertisedEndpoint(config, listen),
    leaseMs: config.leaseMs,
    renewMs: config.renewMs,
    log,
    onLapsed: (message) => {
      log('warn', 'this host lost its threads in the thread store', { message });
      for (const loss of fleet.locks.lostAll(message)) fleet.onLost(loss);
    },
  }).catch((error: unknown) => {
    void pool.end();
    throw new StartupError(`cannot register with the PostgreSQL thread store: ${(error as Error).message}`);
  });
  const readStates = new PostgresReadStates(pool, log);
  const metadata = new PostgresThreadMetadata(pool);
  // A name of this process's own, not its registration's, which a lapsed lease replaces.
  const queues = new PostgresQueues(pool, randomUUID());
  const queueChanges = new QueueChangeListener({ connection: config.connection, origin: queues.origin, log });
  const leave = async () => {
    await Promise.all([membership.leave(LEAVE_DEADLINE_MS), queueChanges.close()]);
  };
  fleet = {
    store: new PostgresThreadStore(config.connection, pool, leave, { readStates, metadata }),
    readStates,
    metadata,
    queues,
    watchQueues: (onChange) => queueChanges.start(onChange),
    locks: new PostgresWriterLocks({ pool, membership, log }),
    onLost: () => undefined,
    peerAuth: secret === null ? null : fleetTokenPolicy(secret),
    routing: (outgoing) => {
      if (secret === null) return null;
      const otherOwner = async (threadId: string): Promise<string | null> => {
        const owner = await ownerOf(pool, threadId, { deadlineMs: OWNER_LOOKUP_DEADLINE_MS });
        if (owner === null || !owner.ownerLive || owner.ownerHost === membership.hostId || !owner.endpoint) return null;
        return owner.endpoint;
      };
      return new RequestRouting(new Forwarder({ secret, hostId: () => membership.hostId, otherOwner, outgoing, log }));
    },
    listening: async (url) => {
      if (config.advertise.kind !== 'listener') return;
      await membership.advertise(url, ADVERTISE_DEADLINE_MS).catch((error: unknown) => log('warn', 'could not record where peers reach this host', { url, error: String(error) }));
    },
  };
  return fleet;
}

/** The URL peers reach this host at, as registered; empty when it has none (no ws:// listener, no fleet_advertise_url). */
function advertisedEndpoint(config: PostgresStoreConfig, listen: ListenTarget): string {
  if (config.advertise.kind === 'url') return config.advertise.url;
  if (config.advertise.kind === 'listener' && listen.kind === 'ws') return `ws://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
  return '';
}
