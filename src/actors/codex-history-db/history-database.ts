// thread-host's connection to the reference's paginated history database
// (thread_history_1.sqlite), one per database per pool worker, opened on first use. It writes
// only into a database it can trust to have the reference's 0.171.0 schema: one that exists
// (it is never created here), is in WAL mode, and whose `_sqlx_migrations` equal the pinned
// list. It never migrates, vacuums, checkpoints, changes the database's settings or deletes a
// row; the connection's own settings (no busy wait, no automatic checkpoints, NORMAL sync as
// the reference's own connections use) last only as long as it does.
//
// better-sqlite3 is synchronous: this runs only in pool workers, and it never waits for
// another connection's lock. A write that finds the lock taken returns 'busy' at once and the
// caller tries again later (thread-history-projector.ts), so the worker's other actors keep
// running while the reference holds its write lock. Every descriptor on the database's files
// is the SQLite client's own (its POSIX locks are per process and would be dropped by any
// other close).
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { PINNED_HISTORY_MIGRATIONS } from './pinned-migrations.js';
import type { Checkpoint, PlacedLine } from './rollout-tail.js';
import { APPLY_SQL } from './projection-sql.js';

/** How an attempt to write a tail ended. */
export type ApplyOutcome =
  | { kind: 'applied' }
  /** Another connection holds the write lock: nothing written, try again later. */
  | { kind: 'busy' }
  /** The checkpoint moved since it was read: nothing written. */
  | { kind: 'moved'; found: Checkpoint | null }
  | { kind: 'unusable'; reason: string };

type Write = (threadId: string, from: Checkpoint, lines: readonly PlacedLine[], next: Checkpoint) => ApplyOutcome;

type Opened = { kind: 'open'; db: Database.Database; statements: Statements; write: Write } | { kind: 'refused'; reason: string };

type Statements = { [K in keyof typeof APPLY_SQL | 'migrations' | 'dataVersion']: Database.Statement };

export class HistoryDatabase {
  readonly path: string;
  /** How long a writer waits for another connection's write lock before it gives up (the caller's loop). */
  readonly deadlineMs: number;
  #opened: Opened | null = null;
  /**
   * This connection's `data_version` when the migrations were last found pinned, under the
   * write lock. It changes only when another connection commits, so while it stays the same
   * the migrations cannot have changed and are not read again.
   */
  #migrationsCheckedAt: number | null = null;
  readonly #noticed = new Set<string>();

  constructor(path: string, deadlineMs: number) {
    this.path = path;
    this.deadlineMs = deadlineMs;
  }

  /** The thread's checkpoint (null: never projected), or why this database is not written. */
  checkpoint(threadId: string): { kind: 'checkpoint'; at: Checkpoint | null } | { kind: 'busy' } | { kind: 'unusable'; reason: string } {
    const opened = this.#open();
    if (opened.kind === 'refused') return { kind: 'unusable', reason: opened.reason };
    try {
      return { kind: 'checkpoint', at: readCheckpoint(opened.statements, threadId) };
    } catch (error) {
      if (isBusy(error)) return { kind: 'busy' };
      return { kind: 'unusable', reason: `reading the checkpoint failed: ${(error as Error).message}` };
    }
  }

  /**
   * In one BEGIN IMMEDIATE transaction: checks that the thread's checkpoint is still `from`,
   * applies `lines` as the reference applies them, and moves the checkpoint to `next`.
   */
  apply(threadId: string, from: Checkpoint, lines: readonly PlacedLine[], next: Checkpoint): ApplyOutcome {
    const opened = this.#open();
    if (opened.kind === 'refused') return { kind: 'unusable', reason: opened.reason };
    try {
      return opened.write(threadId, from, lines, next);
    } catch (error) {
      if (isBusy(error)) return { kind: 'busy' };
      return { kind: 'unusable', reason: `writing failed: ${(error as Error).message}` };
    }
  }

  // The body of apply's transaction, run under the write lock.
  #write(s: Statements, threadId: string, from: Checkpoint, lines: readonly PlacedLine[], next: Checkpoint): ApplyOutcome {
    // Again under the write lock: a newer reference may have migrated it since it was opened.
    const dataVersion = s.dataVersion.get() as number;
    if (dataVersion !== this.#migrationsCheckedAt) {
      const migrated = migrationsRefusal(s.migrations);
      if (migrated !== null) return { kind: 'unusable', reason: migrated };
      this.#migrationsCheckedAt = dataVersion;
    }
    const found = readCheckpoint(s, threadId);
    const expected = found ?? { offset: 0, ordinal: 0 };
    if (expected.offset !== from.offset || expected.ordinal !== from.ordinal) return { kind: 'moved', found };
    for (const line of lines) applyLine(s, threadId, line);
    s.upsertCheckpoint.run(threadId, next.offset, next.ordinal);
    return { kind: 'applied' };
  }

  /** True the first time a kind of refusal is noted for this database: it is logged once. */
  firstNotice(category: string): boolean {
    if (this.#noticed.has(category)) return false;
    this.#noticed.add(category);
    return true;
  }

  close(): void {
    if (this.#opened?.kind === 'open') this.#opened.db.close();
    this.#opened = null;
    this.#migrationsCheckedAt = null;
  }

  #open(): Opened {
    if (this.#opened !== null) return this.#opened;
    // Not yet created by the reference: nothing to share yet, and it is never created here.
    // Asked again next time, so a database the reference creates later is found.
    if (!existsSync(this.path)) return { kind: 'refused', reason: 'the database does not exist (the reference creates it)' };
    let db: Database.Database | null = null;
    try {
      // Checked through a read-only connection: closing it never checkpoints, so a database
      // refused here is left byte for byte as it was.
      const probe = new Database(this.path, { readonly: true, fileMustExist: true, timeout: this.deadlineMs });
      let refusal: string | null;
      try {
        refusal = schemaRefusal(probe);
      } finally {
        probe.close();
      }
      if (refusal !== null) {
        this.#opened = { kind: 'refused', reason: refusal };
        return this.#opened;
      }
      // No busy timeout: a lock another connection holds is waited for by trying again
      // asynchronously, never by blocking the worker.
      db = new Database(this.path, { fileMustExist: true, timeout: 0 });
      db.pragma('wal_autocheckpoint = 0');
      db.pragma('synchronous = NORMAL');
      const open = db;
      const sql = { ...APPLY_SQL, migrations: MIGRATIONS_SQL, dataVersion: 'PRAGMA data_version' };
      const statements = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, open.prepare(text)])) as Statements;
      statements.dataVersion.pluck();
      const write = open.transaction((...args: Parameters<Write>) => this.#write(statements, ...args)).immediate;
      this.#opened = { kind: 'open', db, statements, write };
    } catch (error) {
      db?.close();
      this.#opened = { kind: 'refused', reason: `opening it failed: ${(error as Error).message}` };
    }
    return this.#opened;
  }
}

/** Why a database is not the reference's 0.171.0 schema in WAL mode; null when it is. */
function schemaRefusal(db: Database.Database): string | null {
  const mode = String(db.pragma('journal_mode', { simple: true }));
  if (mode.toLowerCase() !== 'wal') return `its journal mode is ${mode}, not wal`;
  return migrationsRefusal(db.prepare(MIGRATIONS_SQL));
}

const MIGRATIONS_SQL = 'SELECT version, hex(checksum) AS checksum, success FROM _sqlx_migrations ORDER BY version';

function migrationsRefusal(migrations: Database.Statement): string | null {
  const rows = migrations.all() as Array<{
    version: number;
    checksum: string;
    success: number;
  }>;
  const found = rows.map((row) => `${row.version}:${row.checksum}:${row.success}`).join(',');
  const pinned = PINNED_HISTORY_MIGRATIONS.map(([version, checksum]) => `${version}:${checksum}:1`).join(',');
  if (found !== pinned) return `its migrations are not codex 0.171.0's (versions ${rows.map((row) => row.version).join(',') || 'none'})`;
  return null;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

function readCheckpoint(s: Statements, threadId: string): Checkpoint | null {
  const row = s.selectCheckpoint.get(threadId) as { offset: number; ordinal: number } | undefined;
  return row === undefined ? null : { offset: row.offset, ordinal: row.ordinal };
}

// The reference's `apply_change_set` for one line: turns first, then items.
function applyLine(s: Statements, threadId: string, line: PlacedLine): void {
  for (const turn of line.turns) {
    const terminal = turn.status !== 'inProgress';
    s.upsertTurn.run(
      threadId,
      turn.turnId,
      line.ordinal,
      line.startOffset,
      terminal ? line.ordinal : null,
      terminal ? line.endOffset : null,
      turn.status,
      turn.errorJson,
      turn.startedAt,
      turn.completedAt,
      turn.durationMs,
      turn.rootTurnId,
    );
    s.fillTurnSummary.run({ thread: threadId, turn: turn.turnId, ordinal: line.ordinal });
  }
  for (const item of line.items) {
    s.upsertItem.run(threadId, item.turnId, item.itemId, line.ordinal, line.ordinal, item.startedAtMs, item.startedAtMs, item.completedAtMs, item.itemJson, item.itemJson);
    if (item.itemType === 'userMessage') s.noteFirstUserItem.run(item.itemId, threadId, item.turnId);
  }
}
