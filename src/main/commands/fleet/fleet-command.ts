// `thread-host fleet …`: moving threads between a home's files and the PostgreSQL store, and
// a local fleet to try (local-fleet.ts).
// The database is the one the host's configuration names (postgres_url in config.toml or -c,
// else libpq's PG* variables), whether or not that host runs on it yet; its schema is
// migrated first, as a host's start does.
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import pg from 'pg';
import { openPostgresPool, PostgresDeadlineError, type PostgresConnection } from '../../../common/postgres/postgres-connection.js';
import { migrateSchema, SchemaTooNewError } from '../../../common/postgres/schema-migrations.js';
import { ConfigError } from '../../config/config-document.js';
import { resolveHome } from '../../config/home.js';
import { loadConfigDocument } from '../../host/startup-config.js';
import { resolveThreadStoreConfig } from '../../config/thread-store-config.js';
import { UsageError } from '../../usage-error.js';
import { exportThread, FleetCommandError } from './fleet-export.js';
import { importHome, type ImportOutcome } from './fleet-import.js';
import { threadIdOf } from '../../../common/thread-id.js';

const FLEET_USAGE = `Usage: thread-host fleet <command> [options]

Move threads between a home's rollout files and the PostgreSQL thread store.

Commands:
  import HOME          Store the rollouts of HOME (sessions/ and archived_sessions/), their
                       names, and thread-host's read states, metadata and queued input of
                       each. Run again, it stores only what the files gained since; a thread
                       whose stored lines are not the start of its file, or whose stored state
                       differs from the home's, is reported and left as it is.
  export THREAD_ID     Write a stored thread as the reference's rollout file, byte for byte.
  local                Start a fleet on this machine to try: a throwaway PostgreSQL database and
                       N hosts on it ('thread-host fleet local --help').

Options:
  --home DIR           export: the home to write the rollout into (default: this host's home)
  -c, --config <k=v>   Override a config.toml key, as app-server takes it (repeatable)
  -h, --help           Show this help

The database is this host's: postgres_url from config.toml or -c, else the PG* environment
variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD). Home: $THREAD_HOST_HOME, else
$CODEX_HOME, else ~/.thread-host.`;

// Above the longest deadline of a call here (an export's read of a whole thread).
const STATEMENT_TIMEOUT_MS = 150_000;

/** `thread-host fleet …`; resolves the exit code. */
export async function runFleetCommand(args: string[]): Promise<number> {
  // `local` starts a fleet of its own and takes its own options (local-fleet.ts).
  if (args[0] === 'local') return (await import('./local-fleet.js')).runLocalFleetCommand(args.slice(1));
  const { values, positionals } = parseFleetArgs(args);
  if (values.help === true || positionals.length === 0) {
    process.stdout.write(FLEET_USAGE + '\n');
    return values.help === true ? 0 : 2;
  }
  const [command, target, ...extra] = positionals;
  if (command !== 'import' && command !== 'export') throw new UsageError(`unknown fleet command '${command}'`);
  if (target === undefined) throw new UsageError(`fleet ${command}: missing ${command === 'import' ? 'HOME' : 'THREAD_ID'}`);
  if (extra.length > 0) throw new UsageError(`fleet ${command}: unexpected argument '${extra[0]}'`);
  if (command === 'import' && values.home !== undefined) throw new UsageError("fleet import: '--home' is for export; the home to import is its argument");
  // A mistyped home would import nothing and report success.
  if (command === 'import' && !isDirectory(resolve(target))) throw new UsageError(`fleet import: ${resolve(target)} is not a directory (the home to import)`);
  const hostHome = resolveHome();
  try {
    const connection = storeConnection(hostHome, (values.config as string[] | undefined) ?? []);
    await migrateSchema(connection);
    // A whole rollout goes in one read or a few appends: longer deadlines than a host's turns.
    const pool = openPostgresPool(connection, { max: 2, name: `fleet ${command}`, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    try {
      return command === 'import'
        ? await runImport(pool, resolve(target))
        : await runExport(pool, target, resolve((values.home as string | undefined) ?? hostHome));
    } finally {
      await pool.end();
    }
  } catch (error) {
    const message = describeError(error);
    if (message === null) throw error;
    process.stderr.write(`thread-host fleet ${command}: ${message}\n`);
    return 1;
  }
}

function storeConnection(home: string, overrides: string[]): PostgresConnection {
  const document = loadConfigDocument(home, overrides);
  // The database is named the same way whether or not the host itself runs on it yet.
  const store = resolveThreadStoreConfig({ ...document, thread_store: 'postgres' }, { home, listen: { kind: 'off' } });
  if (store.kind !== 'postgres') throw new Error('unreachable: the store was forced to postgres');
  return store.connection;
}

async function runImport(pool: pg.Pool, home: string): Promise<number> {
  const counts = { imported: 0, grown: 0, unchanged: 0, skipped: 0, lines: 0 };
  const states = { readState: stateCounts(), metadata: stateCounts(), queue: stateCounts() };
  await importHome(pool, home, (outcome: ImportOutcome) => {
    if (outcome.kind === 'state') {
      const { what, threadId, result, inputs } = outcome;
      states[what][result] += 1;
      if (result === 'imported') states[what].inputs += inputs;
      if (result === 'imported') process.stdout.write(`imported the ${STATE_LABELS[what].one} of ${threadId}${what === 'queue' ? `: ${inputs} inputs` : ''}\n`);
      if (result === 'skipped') process.stderr.write(`skipped the ${STATE_LABELS[what].one} of ${threadId}: the store holds another for this thread; left as it is\n`);
      return;
    }
    counts[outcome.kind] += 1;
    if (outcome.kind === 'skipped') process.stderr.write(`skipped ${outcome.path}: ${outcome.reason}\n`);
    if (outcome.kind === 'imported' || outcome.kind === 'grown') {
      counts.lines += outcome.lines;
      process.stdout.write(`${outcome.kind === 'imported' ? 'imported' : 'appended to'} ${outcome.threadId}: ${outcome.lines} lines\n`);
    }
  });
  process.stdout.write(
    `${counts.imported} threads imported, ${counts.grown} grown, ${counts.unchanged} unchanged, ${counts.skipped} skipped (${counts.lines} lines stored)\n`,
  );
  for (const what of ['readState', 'metadata', 'queue'] as const) {
    const { imported, unchanged, skipped, inputs } = states[what];
    const queued = what === 'queue' ? ` (${inputs} inputs queued)` : '';
    process.stdout.write(`${imported} ${STATE_LABELS[what].many} imported, ${unchanged} unchanged, ${skipped} skipped${queued}\n`);
  }
  const skipped = counts.skipped + states.readState.skipped + states.metadata.skipped + states.queue.skipped;
  return skipped === 0 ? 0 : 1;
}

const stateCounts = () => ({ imported: 0, unchanged: 0, skipped: 0, inputs: 0 });
const STATE_LABELS = {
  readState: { one: 'read state', many: 'read states' },
  metadata: { one: 'metadata', many: 'metadata' },
  queue: { one: 'queue', many: 'queues' },
} as const;

async function runExport(pool: pg.Pool, threadId: string, home: string): Promise<number> {
  // The command line is this command's edge: the id takes its one form here.
  const outcome = await exportThread(pool, threadIdOf(threadId), home);
  process.stdout.write(outcome.kind === 'written' ? `wrote ${outcome.path}\n` : `${outcome.path} already holds this thread\n`);
  return 0;
}

/** The text to show for an error a user can act on; null for a bug (its stack is shown instead). */
function describeError(error: unknown): string | null {
  if (error instanceof ConfigError) return `invalid configuration: ${error.message}`;
  if (error instanceof FleetCommandError || error instanceof SchemaTooNewError || error instanceof PostgresDeadlineError) return error.message;
  if (error instanceof pg.DatabaseError) return `PostgreSQL refused: ${error.message}`;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ENOENT|EACCES|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|ECONNRESET)$/.test(code) && 'address' in (error as object)) {
    return `cannot reach PostgreSQL (${(error as Error).message}); check postgres_url or the PG* variables`;
  }
  if (error instanceof Error && /^(Connection terminated|timeout expired)/i.test(error.message)) {
    return `cannot reach PostgreSQL (${error.message}); check postgres_url or the PG* variables`;
  }
  if (typeof code === 'string' && error instanceof Error) return error.message;
  return null;
}

type OptionSpec = Parameters<typeof parseArgs>[0] extends infer T ? (T extends { options?: infer O } ? O : never) : never;

function parseFleetArgs(args: string[]) {
  const options: NonNullable<OptionSpec> = {
    home: { type: 'string' },
    config: { type: 'string', short: 'c', multiple: true },
    help: { type: 'boolean', short: 'h' },
  };
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = (error as Error).message.split('. ')[0]!;
    throw new UsageError(message.charAt(0).toLowerCase() + message.slice(1));
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
