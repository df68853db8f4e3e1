// The thread store's schema, versioned by node-pg-migrate: the SQL files in migrations/ run in
// order, each once, recorded in a table of its own. Several hosts starting at once take the
// tool's advisory lock in turn: the first migrates, the others wait for it and then find
// nothing left to run. A database whose schema is newer than this build (a migration recorded
// that this build does not ship) is refused before anything runs: an older host writing into a
// newer schema could break what the newer hosts expect, and no migration is ever run down.
//
// The migrations are SQL files, not code, so the bundle finds them beside itself: the build
// copies migrations/ next to each output that imports this module (scripts/bundle.mjs).
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { LogFn } from '../log.js';
import { DEFAULT_CONNECT_MS, PostgresDeadlineError, QUERY_CANCELED, type PostgresConnection } from './postgres-connection.js';

/** The table node-pg-migrate records applied migrations in. */
export const MIGRATIONS_TABLE = 'thread_host_migrations';
// The tool's own advisory lock id (its PG_MIGRATE_LOCK_ID), taken here because the check for a
// newer schema must run under the same lock as the migrations.
export const MIGRATION_LOCK_ID = '7241865325823964';
// Waiting for another host's migrations counts against this too.
export const DEFAULT_MIGRATION_DEADLINE_MS = 60_000;
const BACKSTOP_MS = 1_000;

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface MigrateOptions {
  deadlineMs?: number;
  log?: LogFn;
  /** Where the migration files are; tests point it at a folder with one more. */
  migrationsDir?: string;
}

/** A database whose schema this build does not know; a newer thread-host migrated it. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly databaseVersion: string,
    readonly knownVersion: string,
  ) {
    super(
      `the database's thread store schema is at version ${databaseVersion}, newer than this thread-host knows (up to ${knownVersion}); ` +
        'run a thread-host at least as new as the one that migrated it',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** Brings the schema up to this build's version; returns the migrations it ran (none when current). */
export async function migrateSchema(connection: PostgresConnection, options: MigrateOptions = {}): Promise<string[]> {
  const deadlineMs = options.deadlineMs ?? DEFAULT_MIGRATION_DEADLINE_MS;
  const dir = options.migrationsDir ?? MIGRATIONS_DIR;
  const known = await knownMigrations(dir);
  const client = new pg.Client({
    ...(connection.url === null ? {} : { connectionString: connection.url }),
    application_name: 'thread-host migrations',
    connectionTimeoutMillis: Math.min(deadlineMs, DEFAULT_CONNECT_MS),
    // Backstops past the deadline: the timer below is what ends a migration in time.
    statement_timeout: deadlineMs + BACKSTOP_MS,
    query_timeout: deadlineMs + BACKSTOP_MS,
  });
  client.on('error', (error) => options.log?.('warn', 'postgres connection error', { pool: 'migrations', error: error.message }));
  // The wait for another host's migrations is a statement too, but one deadline bounds the whole.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void client.end().catch(() => undefined);
  }, deadlineMs);
  try {
    await client.connect();
    await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`);
    try {
      const applied = await appliedMigrations(client);
      const unknown = applied.filter((name) => !known.includes(name));
      if (unknown.length > 0) throw new SchemaTooNewError(unknown[unknown.length - 1]!, known[known.length - 1] ?? 'none');
      const { runner } = await import('node-pg-migrate');
      const ran = await runner({
        dbClient: client,
        dir,
        migrationsTable: MIGRATIONS_TABLE,
        direction: 'up',
        noLock: true,
        checkOrder: true,
        singleTransaction: true,
        logger: quietLogger(options.log),
      });
      return ran.map((migration) => migration.name);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_ID})`).catch(() => undefined);
    }
  } catch (error) {
    // Whichever ends it first: this timer, the server's statement_timeout, or pg's own.
    if (timedOut || (error instanceof Error && !(error instanceof pg.DatabaseError) && /timeout/i.test(error.message))) {
      throw new PostgresDeadlineError('migrating the schema', deadlineMs);
    }
    if (error instanceof pg.DatabaseError && error.code === QUERY_CANCELED) throw new PostgresDeadlineError('migrating the schema', deadlineMs, 'server');
    throw error;
  } finally {
    clearTimeout(timer);
    await client.end().catch(() => undefined);
  }
}

/** The migrations this build ships, by name (file name without .sql), in order. */
export async function knownMigrations(dir: string = MIGRATIONS_DIR): Promise<string[]> {
  const files = await readdir(dir);
  return files
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.slice(0, -'.sql'.length))
    .sort();
}

async function appliedMigrations(client: pg.Client): Promise<string[]> {
  const table = await client.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [MIGRATIONS_TABLE]);
  if (table.rows[0]?.present !== true) return [];
  const rows = await client.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY run_on, id`);
  return rows.rows.map((row) => row.name);
}

function quietLogger(log: LogFn | undefined) {
  const to = (level: 'info' | 'warn' | 'error') => (message: string) => log?.(level, `schema migration: ${message}`);
  return { debug: () => undefined, info: to('info'), warn: to('warn'), error: to('error') };
}
