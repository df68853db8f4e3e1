// The PostgreSQL side of the bench's postgres cases: a database per case, on --postgres-url or
// on a throwaway cluster started at the first case that needs one (src/main/commands/fleet/throwaway-cluster.ts,
// as the tests and `thread-host fleet local` start theirs) and stopped when the bench ends; the
// config.toml lines that put a host on it; and the database's own count of transactions, which
// the turn scenarios divide by their turns (every statement a host sends outside a transaction
// block is one transaction, so this counts the round trips a turn costs without
// pg_stat_statements).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { clusterUrl, startPostgresCluster, type PostgresCluster } from '../../src/main/commands/fleet/throwaway-cluster.js';

let cluster: PostgresCluster | null = null;

// A backend publishes its statistics when it goes idle, but not twice within a second
// (PostgreSQL 15's PGSTAT_MIN_INTERVAL): one that did retries only after PGSTAT_IDLE_INTERVAL,
// ten seconds. A count read sooner would miss the last statements of a busy connection.
const STATS_FLUSH_WAIT_MS = 11_000;

/** A database for one case: a fresh one on the throwaway cluster, or the one --postgres-url names. */
export async function benchDatabase(postgresUrl: string | null): Promise<PostgresConnection> {
  if (postgresUrl !== null) return { url: postgresUrl };
  cluster ??= startPostgresCluster();
  const name = `bench_${randomUUID().replaceAll('-', '')}`;
  await withClient({ url: clusterUrl('postgres', cluster.socketDir) }, (client) => client.query(`CREATE DATABASE ${name}`));
  return { url: clusterUrl(name, cluster.socketDir) };
}

/** Stops and removes the throwaway cluster, if one was started; synchronous, for Ctrl-C too. */
export function stopBenchCluster(): void {
  const started = cluster;
  cluster = null;
  started?.stop();
}

/** config.toml lines putting a host on `connection`'s database with the given lease. */
export function postgresStoreConfig(connection: PostgresConnection, leaseMs: number, renewMs: number): string {
  return [`thread_store = "postgres"`, `postgres_url = ${JSON.stringify(connection.url)}`, `fleet_lease_ms = ${leaseMs}`, `fleet_renew_ms = ${renewMs}`].join('\n');
}

/**
 * Transactions committed or rolled back in the database so far, once every backend has published
 * its count. This read's own transaction shows in the next read: a difference of two reads holds one.
 */
export async function databaseTransactions(connection: PostgresConnection): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_WAIT_MS));
  return withClient(connection, async (client) => {
    // A snapshot of the statistics is taken at their first read in a transaction; a fresh
    // connection reads them fresh.
    const result = await client.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(result.rows[0]!.n);
  });
}

async function withClient<T>(connection: PostgresConnection, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: connection.url ?? undefined, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}
