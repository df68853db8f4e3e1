// One pg pool per connection settings in each thread that talks to the thread store (a pool
// worker, the stored-history worker), opened on first use and kept for the thread's life:
// every actor or request of that thread shares its few connections.
import type { Pool } from 'pg';
import { openPostgresPool, type PostgresConnection } from './postgres-connection.js';

const pools = new Map<string, Pool>();

/** This thread's pool for `connection`; `max` and `name` apply when it is first opened. */
export function sharedPool(connection: PostgresConnection, options: { max: number; name: string }): Pool {
  const key = JSON.stringify(connection);
  let pool = pools.get(key);
  if (pool === undefined) {
    pool = openPostgresPool(connection, options);
    pools.set(key, pool);
  }
  return pool;
}
