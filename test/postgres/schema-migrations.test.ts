// The schema's migrations on a real PostgreSQL: a fresh database, hosts starting at once, and a
// database a newer build migrated.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { PostgresDeadlineError } from '../../src/common/postgres/postgres-connection.js';
import { MIGRATION_LOCK_ID, MIGRATIONS_DIR, MIGRATIONS_TABLE, SchemaTooNewError, migrateSchema } from '../../src/common/postgres/schema-migrations.js';
import { testDatabase } from '../helpers/test-database.js';

const SHIPPED = ['0001_thread-store', '0002_thread-read-state-and-metadata', '0003_thread-queues', '0004_thread-first-preview'];
const NEWER = '0099_thread-tags';
const folders: string[] = [];
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

async function rows<T>(url: string | null, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url ?? undefined });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The migrations this build ships, and one more, as a newer build would have them. */
function newerMigrations(): string {
  const folder = mkdtempSync(join(tmpdir(), 'thread-host-migrations-'));
  folders.push(folder);
  cpSync(MIGRATIONS_DIR, folder, { recursive: true });
  writeFileSync(join(folder, `${NEWER}.sql`), '-- Up Migration\nALTER TABLE threads ADD COLUMN tags text[];\n');
  return folder;
}

describe('migrateSchema', () => {
  test('creates the schema on a fresh database, then finds nothing to run', async () => {
    const db = await testDatabase();
    expect(await migrateSchema(db)).toEqual(SHIPPED);
    expect(await migrateSchema(db)).toEqual([]);
    const columns = await rows<{ table_name: string; column_name: string; data_type: string }>(
      db.url,
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '${MIGRATIONS_TABLE}' ORDER BY table_name, ordinal_position`,
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name} ${c.data_type}`)).toEqual([
      'hosts.host_id uuid',
      'hosts.endpoint text',
      'hosts.lease_until timestamp with time zone',
      'hosts.started_at timestamp with time zone',
      'rollout_lines.thread_id text',
      'rollout_lines.ordinal bigint',
      'rollout_lines.epoch bigint',
      'rollout_lines.line text',
      'thread_owners.thread_id text',
      'thread_owners.epoch bigint',
      'thread_owners.owner_host uuid',
      'thread_owners.next_ordinal bigint',
      'thread_queues.thread_id text',
      'thread_queues.submissions jsonb',
      'thread_queues.version bigint',
      'threads.thread_id text',
      'threads.created_at timestamp with time zone',
      'threads.updated_at timestamp with time zone',
      'threads.history_mode text',
      'threads.name text',
      'threads.archived_at timestamp with time zone',
      'threads.rollout_name text',
      'threads.head_end bigint',
      'threads.read_first_unread jsonb',
      'threads.read_revision text',
      'threads.read_last_published_turn text',
      'threads.git_info jsonb',
      'threads.daybreak_enabled boolean',
      'threads.first_preview text',
    ]);
  });

  test('hosts starting at once: one migrates, the others wait and find it done', async () => {
    const db = await testDatabase();
    const ran = await Promise.all(Array.from({ length: 6 }, () => migrateSchema(db)));
    expect(ran.filter((names) => names.length > 0)).toEqual([SHIPPED]);
    expect(ran.filter((names) => names.length === 0)).toHaveLength(5);
    expect(await rows<{ name: string }>(db.url, `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`)).toEqual(SHIPPED.map((name) => ({ name })));
  });

  test('a newer build migrates on; this one then refuses the newer schema, naming both versions', async () => {
    const db = await testDatabase();
    expect(await migrateSchema(db)).toEqual(SHIPPED);
    expect(await migrateSchema(db, { migrationsDir: newerMigrations() })).toEqual([NEWER]);
    const refused = await migrateSchema(db).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SchemaTooNewError);
    expect((refused as Error).message).toBe(
      `the database's thread store schema is at version ${NEWER}, newer than this thread-host knows (up to ${SHIPPED.at(-1)}); ` +
        'run a thread-host at least as new as the one that migrated it',
    );
    // Nothing was run down or changed.
    expect(await rows<{ name: string }>(db.url, `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`)).toEqual([...SHIPPED, NEWER].map((name) => ({ name })));
  });

  test('a migration that cannot take the lock in time fails at its deadline', async () => {
    const db = await testDatabase();
    const holder = new pg.Client({ connectionString: db.url! });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`);
      const started = performance.now();
      const failed = await migrateSchema(db, { deadlineMs: 300 }).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(PostgresDeadlineError);
      expect((failed as Error).message).toBe('postgres: migrating the schema did not finish within 300 ms');
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      await holder.end();
    }
    // Once the holder is gone, the schema migrates.
    expect(await migrateSchema(db)).toEqual(SHIPPED);
  });
});
