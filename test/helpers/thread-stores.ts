// The two thread stores an e2e suite runs on: the home's rollout files (the default) and the
// PostgreSQL store, on a database of its own for each call (test-database.ts). Suites that
// must give the same answers on both run `describe.each(THREAD_STORES)`.
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { testDatabase } from './test-database.js';

export type ThreadStoreKind = 'files' | 'postgres';

export const THREAD_STORES: readonly ThreadStoreKind[] = ['files', 'postgres'];

/** config.toml lines selecting `store` (a fresh database for PostgreSQL), followed by `extra`. */
export async function storeRootConfig(store: ThreadStoreKind, ...extra: string[]): Promise<string> {
  return rootConfigOn(await storeDatabase(store), ...extra);
}

/** A fresh database for the PostgreSQL store; null for the files store. */
export const storeDatabase = async (store: ThreadStoreKind): Promise<PostgresConnection | null> => (store === 'files' ? null : testDatabase());

/** config.toml lines selecting the PostgreSQL store at `db` (the files store for null), followed by `extra`. */
export const rootConfigOn = (db: PostgresConnection | null, ...extra: string[]): string => [...(db === null ? [] : postgresLines(db)), ...extra].join('\n');

/** The lines that put a host on the PostgreSQL store at `db`. */
export const postgresLines = (db: PostgresConnection): string[] => [`thread_store = "postgres"`, `postgres_url = ${JSON.stringify(db.url)}`];
