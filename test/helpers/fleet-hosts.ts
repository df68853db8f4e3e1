// Hosts of a fleet on one PostgreSQL database for end-to-end tests: the config that puts a host
// on the store with a short lease, starting one, and running a turn on it to its end.
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import type { CheckedConnection } from './checked-connection.js';
import { TestServer, type Message } from './test-server.js';

export interface FleetTiming {
  leaseMs: number;
  renewMs: number;
}

export const fleetHostConfig = (db: PostgresConnection, timing: FleetTiming): string =>
  [
    `thread_store = "postgres"`,
    `postgres_url = ${JSON.stringify(db.url)}`,
    `fleet_lease_ms = ${timing.leaseMs}`,
    `fleet_renew_ms = ${timing.renewMs}`,
    `thread_unload_delay_secs = 0`,
  ].join('\n');

/** A host over stdio on `db`, its model the mock at `modelUrl`. */
export const startFleetHost = (db: PostgresConnection, modelUrl: string, timing: FleetTiming): Promise<TestServer> =>
  TestServer.start({ modelUrl, rootConfig: fleetHostConfig(db, timing) });

/** Starts a turn with one text input and waits for its turn/completed notification. */
export async function runTurn(server: CheckedConnection, threadId: string, text: string, deadlineMs?: number): Promise<Message> {
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  return server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, deadlineMs);
}
