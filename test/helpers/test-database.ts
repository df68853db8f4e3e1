// A database of its own for a test file, on the run's throwaway cluster (test/helpers/postgres-cluster.ts).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openPostgresPool, type PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { migrateSchema } from '../../src/common/postgres/schema-migrations.js';
import { clusterUrl } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresSocketDir: string;
  }
}

/** A fresh, empty database; the cluster goes with everything in it at the end of the run. */
export async function testDatabase(): Promise<PostgresConnection> {
  const socketDir = inject('postgresSocketDir');
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: clusterUrl('postgres', socketDir), connectionTimeoutMillis: 10_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return { url: clusterUrl(name, socketDir) };
}

/** A fresh database migrated to this build's schema, and a pool on it (`end()` it after the file). */
export async function migratedStore(name: string, max = 8): Promise<{ connection: PostgresConnection; pool: pg.Pool }> {
  const connection = await testDatabase();
  await migrateSchema(connection);
  return { connection, pool: openPostgresPool(connection, { max, name }) };
}
