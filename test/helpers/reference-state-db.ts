// The reference's state and queue databases (state_5.sqlite, queue_1.sqlite) as codex-cli
// 0.171.0 creates them: their schema and migration records (test/fixtures/codex-state-db), in
// WAL mode. Tests of the mirror write into them and read every row back in the shape the
// fixtures record them.
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';

const FIXTURES = new URL('../fixtures/codex-state-db/', import.meta.url);

export const stateFixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;

interface Migration {
  version: number;
  description: string;
  checksum: string;
}

export type StateDbKind = 'state' | 'queue';

/** Creates the database at `path`; `migrations` edits the recorded list first. */
export function createReferenceStateDb(kind: StateDbKind, path: string, migrations: (recorded: Migration[]) => Migration[] = (m) => m): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    // This connection only: a test's database need not survive a power loss.
    db.pragma('synchronous = OFF');
    // SQLite makes sqlite_sequence itself, with the first AUTOINCREMENT table.
    db.exec(readFileSync(new URL(`${kind}-schema.sql`, FIXTURES), 'utf8').replace('CREATE TABLE sqlite_sequence(name,seq);', ''));
    const insert = db.prepare('INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (?, ?, 1, unhex(?), 1000)');
    for (const m of migrations(stateFixture<Migration[]>(`${kind}-migrations.json`))) insert.run(m.version, m.description, m.checksum);
  } finally {
    db.close();
  }
}

/** Every row the mirror touches, ordered as the fixtures record them. */
export interface StateRows {
  threads: Array<Record<string, unknown>>;
  thread_read_receipts: Array<Record<string, unknown>>;
  queued_items: Array<Record<string, unknown>>;
  queued_thread_revisions: Array<Record<string, unknown>>;
}

export function stateRows(statePath: string, queuePath: string): StateRows {
  const read = (path: string, queries: string[]) => {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return queries.map((query) => db.prepare(query).all() as Array<Record<string, unknown>>);
    } finally {
      db.close();
    }
  };
  const [threads, thread_read_receipts] = read(statePath, ['SELECT * FROM threads ORDER BY id', 'SELECT * FROM thread_read_receipts ORDER BY thread_id']);
  const [queued_items, queued_thread_revisions] = read(queuePath, ['SELECT * FROM queued_items ORDER BY thread_id, queue_order', 'SELECT * FROM queued_thread_revisions ORDER BY revision']);
  return { threads: threads!, thread_read_receipts: thread_read_receipts!, queued_items: queued_items!, queued_thread_revisions: queued_thread_revisions! };
}

/** Replaces the `threads` table's rows (the reference's own writes, which thread-host does not mirror). */
export function setThreadRows(statePath: string, rows: Array<Record<string, unknown>>): void {
  const db = new Database(statePath);
  try {
    db.prepare('DELETE FROM threads').run();
    for (const row of rows) {
      const columns = Object.keys(row);
      db.prepare(`INSERT INTO threads (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
    }
  } finally {
    db.close();
  }
}
