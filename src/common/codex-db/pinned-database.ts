// thread-host's connection to one of the reference's SQLite databases (its history projection,
// its state database, its queue), opened on first use and kept. It writes only into a
// database it can trust to have the schema of the reference release thread-host pins: one
// that exists (it is never created here), is in WAL mode, and whose `_sqlx_migrations` equal
// the pinned list. It never migrates, vacuums, checkpoints or changes the database's settings;
// the connection's own settings (no busy wait, no automatic checkpoints, NORMAL sync as the
// reference's own connections use, foreign keys on as sqlx turns them on) last only as long
// as it does.
//
// better-sqlite3 is synchronous: this runs only off the main thread, and it never waits for
// another connection's lock. A statement that finds the lock taken answers 'busy' at once and
// the caller tries again later, asynchronously, so the worker's other work keeps running while
// the reference holds its write lock. Every descriptor on the database's files is the SQLite
// client's own (its POSIX locks are per process and would be dropped by any other close).
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { isBusy } from './busy-retry.js';

/** A migration as `_sqlx_migrations` records it: version, and SHA-384 of its SQL in hex. */
export type PinnedMigration = readonly [version: number, checksum: string];

/** How one use of the database ended. */
export type DatabaseOutcome<T> =
  | { kind: 'done'; value: T }
  /** Another connection holds the write lock: nothing written, try again later. */
  | { kind: 'busy' }
  | { kind: 'unusable'; reason: string };

export type Statements<Names extends string> = { readonly [K in Names]: Database.Statement };

type Opened<Names extends string> =
  | { kind: 'open'; db: Database.Database; statements: Statements<Names | 'migrations' | 'dataVersion'> }
  | { kind: 'refused'; reason: string };

export interface PinnedDatabaseOptions<Names extends string> {
  path: string;
  /** How long a writer waits for another connection's write lock before it gives up (the caller's loop). */
  deadlineMs: number;
  /** What `_sqlx_migrations` must hold, in order. */
  migrations: readonly PinnedMigration[];
  /** Which reference release the pinned migrations are (for the refusal's reason). */
  release: string;
  /** The statements the caller runs, prepared once the database is found usable. */
  sql: Readonly<Record<Names, string>>;
}

export class PinnedDatabase<Names extends string> {
  readonly path: string;
  readonly deadlineMs: number;
  readonly #options: PinnedDatabaseOptions<Names>;
  #opened: Opened<Names> | null = null;
  /**
   * This connection's `data_version` when the migrations were last found pinned, under the
   * write lock. It changes only when another connection commits, so while it stays the same
   * the migrations cannot have changed and are not read again.
   */
  #migrationsCheckedAt: number | null = null;
  readonly #noticed = new Set<string>();

  constructor(options: PinnedDatabaseOptions<Names>) {
    this.#options = options;
    this.path = options.path;
    this.deadlineMs = options.deadlineMs;
  }

  /** Runs `body` outside any transaction (reads, named by `doing`), or says why the database is not used. */
  read<T>(doing: string, body: (statements: Statements<Names>) => T): DatabaseOutcome<T> {
    const opened = this.#open();
    if (opened.kind === 'refused') return { kind: 'unusable', reason: opened.reason };
    return this.#guarded(doing, () => ({ kind: 'done', value: body(opened.statements) }));
  }

  /**
   * Runs `body` in one BEGIN IMMEDIATE transaction, after checking again, under the write
   * lock, that the migrations are still the pinned ones (a newer reference may have migrated
   * the database since it was opened). `body` may throw to roll everything back.
   */
  write<T>(body: (statements: Statements<Names>) => T): DatabaseOutcome<T> {
    return this.#pinnedTransaction('writing', 'immediate', body);
  }

  /**
   * Runs `body` in one read transaction (a snapshot: no write lock is taken), after the same
   * check of the migrations, so rows are read only from the schema thread-host pins.
   */
  readPinned<T>(doing: string, body: (statements: Statements<Names>) => T): DatabaseOutcome<T> {
    return this.#pinnedTransaction(doing, 'deferred', body);
  }

  /** Why this database is not written (it is opened, or found missing, to tell); null when it is usable. */
  refusal(): string | null {
    const opened = this.#open();
    return opened.kind === 'refused' ? opened.reason : null;
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

  #pinnedTransaction<T>(doing: string, mode: 'immediate' | 'deferred', body: (statements: Statements<Names>) => T): DatabaseOutcome<T> {
    const opened = this.#open();
    if (opened.kind === 'refused') return { kind: 'unusable', reason: opened.reason };
    const transaction = opened.db.transaction((): DatabaseOutcome<T> => {
      const dataVersion = opened.statements.dataVersion.get() as number;
      if (dataVersion !== this.#migrationsCheckedAt) {
        const migrated = this.#migrationsRefusal(opened.statements.migrations);
        if (migrated !== null) return { kind: 'unusable', reason: migrated };
        this.#migrationsCheckedAt = dataVersion;
      }
      return { kind: 'done', value: body(opened.statements) };
    });
    return this.#guarded(doing, () => transaction[mode]());
  }

  #guarded<T>(doing: string, run: () => DatabaseOutcome<T>): DatabaseOutcome<T> {
    try {
      return run();
    } catch (error) {
      if (isBusy(error)) return { kind: 'busy' };
      return { kind: 'unusable', reason: `${doing} failed: ${(error as Error).message}` };
    }
  }

  #open(): Opened<Names> {
    if (this.#opened !== null) return this.#opened;
    const { path } = this.#options;
    // Not yet created by the reference: nothing to share yet, and it is never created here.
    // Asked again next time, so a database the reference creates later is found.
    if (!existsSync(path)) return { kind: 'refused', reason: 'the database does not exist (the reference creates it)' };
    let db: Database.Database | null = null;
    try {
      // Checked through a read-only connection: closing it never checkpoints, so a database
      // refused here is left byte for byte as it was.
      const probe = new Database(path, { readonly: true, fileMustExist: true, timeout: this.deadlineMs });
      let refusal: string | null;
      try {
        refusal = this.#schemaRefusal(probe);
      } finally {
        probe.close();
      }
      if (refusal !== null) {
        this.#opened = { kind: 'refused', reason: refusal };
        return this.#opened;
      }
      // No busy timeout: a lock another connection holds is waited for by trying again
      // asynchronously, never by blocking the worker.
      db = new Database(path, { fileMustExist: true, timeout: 0 });
      db.pragma('wal_autocheckpoint = 0');
      db.pragma('synchronous = NORMAL');
      // As the reference's own connections (sqlx's default): deleting a row deletes what references it.
      db.pragma('foreign_keys = ON');
      const open = db;
      const sql: Record<string, string> = { ...this.#options.sql, migrations: MIGRATIONS_SQL, dataVersion: 'PRAGMA data_version' };
      const statements = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, open.prepare(text)])) as Statements<Names | 'migrations' | 'dataVersion'>;
      statements.dataVersion.pluck();
      this.#opened = { kind: 'open', db, statements };
    } catch (error) {
      db?.close();
      this.#opened = { kind: 'refused', reason: `opening it failed: ${(error as Error).message}` };
    }
    return this.#opened;
  }

  /** Why a database is not the pinned schema in WAL mode; null when it is. */
  #schemaRefusal(db: Database.Database): string | null {
    const mode = String(db.pragma('journal_mode', { simple: true }));
    if (mode.toLowerCase() !== 'wal') return `its journal mode is ${mode}, not wal`;
    return this.#migrationsRefusal(db.prepare(MIGRATIONS_SQL));
  }

  #migrationsRefusal(migrations: Database.Statement): string | null {
    const rows = migrations.all() as Array<{ version: number; checksum: string; success: number }>;
    const found = rows.map((row) => `${row.version}:${row.checksum}:${row.success}`).join(',');
    const pinned = this.#options.migrations.map(([version, checksum]) => `${version}:${checksum}:1`).join(',');
    if (found !== pinned) return `its migrations are not ${this.#options.release}'s (versions ${rows.map((row) => row.version).join(',') || 'none'})`;
    return null;
  }
}

const MIGRATIONS_SQL = 'SELECT version, hex(checksum) AS checksum, success FROM _sqlx_migrations ORDER BY version';
