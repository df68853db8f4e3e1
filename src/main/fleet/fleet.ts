// A host's peers in a fleet on the PostgreSQL thread store: how its listener recognizes them,
// which requests go to a thread's owner (with `fleet_secret_file`), and the queue changes other
// hosts make. The store itself (the schema, this host's registration, the adapters) is opened
// by src/main/store/postgres/open-postgres-store.ts, which alone loads this module (and with
// it ws and pg); a host on the files store has no peers (fleet-peers.ts: NO_PEERS).
import type { Pool } from 'pg';
import type { LogFn } from '../../common/log.js';
import { ownerOf } from '../../common/postgres/thread-ownership.js';
import type { PostgresStoreConfig } from '../config/thread-store-config.js';
import type { QueueChangeListener } from '../store/postgres/queue-change-listener.js';
import { fleetTokenPolicy, readFleetSecret } from './fleet-token.js';
import { Forwarder } from './forwarder.js';
import type { HostMembership } from './host-membership.js';
import type { FleetPeers } from './fleet-peers.js';
import { RequestRouting } from './request-routing.js';

// Who owns a thread, asked when a request may have to be forwarded; past it, the request is answered here.
const OWNER_LOOKUP_DEADLINE_MS = 5_000;
// Recording the bound listener's URL; past it, the host serves with no endpoint peers can use.
const ADVERTISE_DEADLINE_MS = 5_000;

export interface FleetPeersOptions {
  config: PostgresStoreConfig;
  /** The store's main-thread connections. */
  pool: Pool;
  membership: HostMembership;
  queueChanges: QueueChangeListener;
  /** `fleet_secret_file`'s secret (fleetSecretOf, read before the host registers); null without one. */
  secret: FleetSecret | null;
  log: LogFn;
}

type FleetSecret = ReturnType<typeof readFleetSecret>;

/** The fleet secret, read first: a host whose secret file is unreadable stops before it registers. */
export const fleetSecretOf = (config: PostgresStoreConfig): FleetSecret | null => (config.secretFile === null ? null : readFleetSecret(config.secretFile));

export function fleetPeers({ config, pool, membership, queueChanges, secret, log }: FleetPeersOptions): FleetPeers {
  return {
    watchQueues: (onChange) => queueChanges.start(onChange),
    peerAuth: secret === null ? null : fleetTokenPolicy(secret),
    routing: (outgoing, serverRequests) => {
      if (secret === null) return null;
      const otherOwner = async (threadId: string): Promise<string | null> => {
        const owner = await ownerOf(pool, threadId, { deadlineMs: OWNER_LOOKUP_DEADLINE_MS });
        if (owner === null || !owner.ownerLive || owner.ownerHost === membership.hostId || !owner.endpoint) return null;
        return owner.endpoint;
      };
      return new RequestRouting(new Forwarder({ secret, hostId: () => membership.hostId, otherOwner, outgoing, serverRequests, log }));
    },
    listening: async (url) => {
      if (config.advertise.kind !== 'listener') return;
      await membership.advertise(url, ADVERTISE_DEADLINE_MS).catch((error: unknown) => log('warn', 'could not record where peers reach this host', { url, error: String(error) }));
    },
  };
}
