// A thread_history_1.sqlite as codex-cli 0.171.0 creates it: its schema and its migration
// records (test/fixtures/codex-history-db), in WAL mode. Tests of the projection write into it
// and read its rows back in the shape the fixtures record them.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

const FIXTURES = new URL('../fixtures/codex-history-db/', import.meta.url);

export const fixtureText = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
export const fixtureBytes = (name: string): Buffer => readFileSync(new URL(name, FIXTURES));

interface Migration {
  version: number;
  description: string;
  checksum: string;
}

/** Creates the database at `path`; `migrations` edits the recorded list first. */
export function createReferenceHistoryDb(path: string, migrations: (recorded: Migration[]) => Migration[] = (m) => m): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    // This connection only: a test's database need not survive a power loss.
    db.pragma('synchronous = OFF');
    db.exec(fixtureText('schema.sql'));
    const insert = db.prepare('INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (?, ?, 1, unhex(?), 1000)');
    for (const m of migrations(JSON.parse(fixtureText('migrations.json')) as Migration[])) insert.run(m.version, m.description, m.checksum);
  } finally {
    db.close();
  }
}

/** A thread's rows, every column, ordered as the fixtures are. */
export function threadRows(path: string, threadId: string): { turns: unknown[]; items: unknown[]; checkpoint: unknown } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      turns: db.prepare('SELECT * FROM thread_turns WHERE thread_id = ? ORDER BY rollout_ordinal').all(threadId),
      items: db.prepare('SELECT * FROM thread_items WHERE thread_id = ? ORDER BY rollout_ordinal').all(threadId),
      checkpoint: db.prepare('SELECT * FROM thread_history_projection_state WHERE thread_id = ?').get(threadId) ?? null,
    };
  } finally {
    db.close();
  }
}
