// What a host's peers in a fleet are to the rest of the host: how its listener recognizes them,
// which requests go to a thread's owner, and the queue changes other hosts make. Built with
// the PostgreSQL store (fleet.ts: fleetPeers); a host alone with its store has NO_PEERS. This
// file loads nothing: a files host's start must not load the fleet's packages (bench case
// `cold-start`, test/e2e/start-path.test.ts).
import type { Outgoing } from '../outgoing.js';
import type { ServerRequests } from '../server-requests/server-requests.js';
import type { WsAuthPolicy } from '../transport/ws-auth-options.js';
import type { RequestRouting } from './request-routing.js';
import type { ThreadId } from '../../common/thread-id.js';

export interface FleetPeers {
  /** Starts hearing of queue changes other hosts make (null: any thread's queue may have changed). */
  watchQueues(onChange: (threadId: ThreadId | null) => void): void;
  /** How this host's listener recognizes its peers; null without `fleet_secret_file`. */
  readonly peerAuth: WsAuthPolicy | null;
  /** Which requests go to their thread's owner; null without `fleet_secret_file` (nothing is forwarded). */
  routing(outgoing: Outgoing, serverRequests: ServerRequests): RequestRouting | null;
  /** The listener is bound at `url`: peers are told (when the advertised URL is the listener's). */
  listening(url: string): Promise<void>;
}

/** A host alone with its store: nothing to forward, nobody else changes its queues. */
export const NO_PEERS: FleetPeers = {
  watchQueues: () => undefined,
  peerAuth: null,
  routing: () => null,
  listening: async () => undefined,
};
