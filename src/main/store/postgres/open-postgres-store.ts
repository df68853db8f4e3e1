// The PostgreSQL store, opened (thread_store = "postgres"): the schema brought up to date, this
// host registered with a lease (fleet/host-membership.ts), and the store's adapters for the
// threads, their states and queues and their ownership, over one pool of the main thread's
// connections. Loaded only by a host configured for this store (host/open-store.ts imports it
// dynamically): a files host never loads `pg`. The fleet's peers (forwarding) are built on the
// same registration (fleet/fleet.ts).
import { randomUUID } from 'node:crypto';
import type { LogFn } from '../../../common/log.js';
import { openPostgresPool } from '../../../common/postgres/postgres-connection.js';
import { migrateSchema, SchemaTooNewError } from '../../../common/postgres/schema-migrations.js';
import type { PostgresStoreConfig } from '../../config/thread-store-config.js';
import { fleetPeers, fleetSecretOf } from '../../fleet/fleet.js';
import type { FleetPeers } from '../../fleet/fleet-peers.js';
import { HostMembership } from '../../fleet/host-membership.js';
import { StartupError } from '../../startup-error.js';
import type { ListenTarget } from '../../transport/listen-url.js';
import type { StoreHooks } from '../store-hooks.js';
import type { ThreadStore } from '../thread-store.js';
import { PostgresQueues } from './postgres-queues.js';
import { PostgresReadStates } from './postgres-read-states.js';
import { PostgresThreadMetadata } from './postgres-thread-metadata.js';
import { PostgresThreads } from './postgres-threads.js';
import { PostgresWriterLocks } from './postgres-writer-locks.js';
import { QueueChangeListener } from './queue-change-listener.js';

// The main thread's statements: acquisitions, releases, renewals and lookups, a few at a time.
const MAIN_CONNECTIONS = 4;
// How long shutdown gives the retirement of this host's row (its threads are free at once after it).
const LEAVE_DEADLINE_MS = 2_000;

/** Opens the store before the host serves; a store it cannot use stops the start with a clear message. */
export async function openPostgresStore(config: PostgresStoreConfig, listen: ListenTarget, log: LogFn, hooks: StoreHooks): Promise<{ store: ThreadStore; peers: FleetPeers }> {
  const secret = fleetSecretOf(config);
  try {
    await migrateSchema(config.connection);
  } catch (error) {
    if (error instanceof SchemaTooNewError) throw new StartupError(error.message);
    throw new StartupError(`cannot use the PostgreSQL thread store: ${(error as Error).message}`);
  }
  const pool = openPostgresPool(config.connection, { max: MAIN_CONNECTIONS, name: 'main', log });
  let locks!: PostgresWriterLocks;
  const membership = await HostMembership.join({
    pool,
    endpoint: advertisedEndpoint(config, listen),
    leaseMs: config.leaseMs,
    renewMs: config.renewMs,
    log,
    onLapsed: (message) => {
      log('warn', 'this host lost its threads in the thread store', { message });
      for (const loss of locks.lostAll(message)) hooks.lockLost(loss);
    },
  }).catch((error: unknown) => {
    void pool.end();
    throw new StartupError(`cannot register with the PostgreSQL thread store: ${(error as Error).message}`);
  });
  locks = new PostgresWriterLocks({ pool, membership, log });
  const readStates = new PostgresReadStates(pool, log);
  const metadata = new PostgresThreadMetadata(pool);
  // A name of this process's own, not its registration's, which a lapsed lease replaces.
  const queues = new PostgresQueues(pool, randomUUID());
  const queueChanges = new QueueChangeListener({ connection: config.connection, origin: queues.origin, log });
  const store: ThreadStore = {
    threads: new PostgresThreads(config.connection, pool, { readStates, metadata }),
    readStates,
    metadata,
    queues,
    locks,
    settled: () => readStates.settled(),
    // Once every thread was released: this host leaves the fleet, so the threads it released are
    // free for the others at once, then its connections close.
    close: async () => {
      await Promise.all([membership.leave(LEAVE_DEADLINE_MS), queueChanges.close()]);
      await pool.end();
    },
  };
  return { store, peers: fleetPeers({ config, pool, membership, queueChanges, secret, log }) };
}

/** The URL peers reach this host at, as registered; empty when it has none (no ws:// listener, no fleet_advertise_url). */
function advertisedEndpoint(config: PostgresStoreConfig, listen: ListenTarget): string {
  if (config.advertise.kind === 'url') return config.advertise.url;
  if (config.advertise.kind === 'listener' && listen.kind === 'ws') return `ws://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
  return '';
}
