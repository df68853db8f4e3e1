// The stored-history worker's side of the PostgreSQL thread store (thread_store = "postgres"):
// reads of threads that are not loaded here, and thread/list pages. `pg` and the store's code
// load with the first request that needs them (a dynamic import), so a worker of a host on the
// files store never loads them.
import type pg from 'pg';
import type { PostgresConnection } from '../../common/postgres/postgres-connection.js';
import type { StoredHistoryText } from '../../common/postgres/stored-lines.js';

// Listings and reads run in two workers, each one request at a time.
const CONNECTIONS_PER_WORKER = 2;

/** This worker's pool for `connection`. */
export async function readerPool(connection: PostgresConnection): Promise<pg.Pool> {
  const { sharedPool } = await import('../../common/postgres/shared-pools.js');
  return sharedPool(connection, { max: CONNECTIONS_PER_WORKER, name: 'thread-host stored-history' });
}

/** A thread's whole history as the rollout's text, and its first message ever if a revert replaced it; null when the store holds none. */
export async function storedHistoryText(connection: PostgresConnection, threadId: string): Promise<StoredHistoryText | null> {
  const [pool, { readStoredHistory }] = await Promise.all([readerPool(connection), import('../../common/postgres/stored-lines.js')]);
  return readStoredHistory(pool, threadId);
}
