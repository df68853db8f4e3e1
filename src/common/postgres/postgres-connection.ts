// How a host reaches PostgreSQL, and the pools it opens there. The connection is a plain
// object so the main thread can hand it to the pool workers and the stored-history worker
// (structured clone), each of which opens its own small pool: a `pg.Pool` cannot cross threads.
//
// Every wait has a deadline (the host's promise: nothing blocks without one): opening a
// connection, waiting for a free one, each statement on the client side (query_timeout) and on
// the server (statement_timeout, which also ends a statement whose client went away), and a
// transaction left idle. An 'error' event of the pool or of any of its clients (the server
// restarted, the network dropped an idle connection) is logged and counted, never left
// unhandled: an unhandled 'error' event would end the whole process.
import pg from 'pg';
import { systemClock } from '../clock.js';
import { withDeadline } from '../deadline.js';
import type { LogFn } from '../log.js';

/** Where the database is: a connection string, or null for libpq's PG* environment variables alone. */
export interface PostgresConnection {
  url: string | null;
}

export interface PostgresPoolOptions {
  /** Connections at most: each worker needs few, and the server's max_connections is shared by every host. */
  max: number;
  /** Which part of which host this pool serves; PostgreSQL shows it as application_name. */
  name: string;
  log?: LogFn;
  /** Default deadline of a call that names none (milliseconds). */
  deadlineMs?: number;
  /** Deadline of opening a connection and of waiting for a free one (milliseconds). */
  connectMs?: number;
  /** The server's own limit on a statement (milliseconds): longer than any call's deadline. */
  statementTimeoutMs?: number;
}

/** Per-call options of the store's functions. */
export interface CallOptions {
  /** How long the call may take in all, waiting for a connection included (milliseconds). */
  deadlineMs?: number;
}

export const DEFAULT_DEADLINE_MS = 5_000;
export const DEFAULT_CONNECT_MS = 5_000;
// The server's own backstop for a statement whose client deadline passed (or whose client
// died): longer than the calls' deadlines, so the client is the one that reports the timeout.
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** PostgreSQL's SQLSTATE for a statement cancelled, by statement_timeout among others. */
export const QUERY_CANCELED = '57014';
// A transaction left open by a client that stalled holds row locks that fence other hosts out.
const IDLE_IN_TRANSACTION_MS = 10_000;
const IDLE_CONNECTION_MS = 30_000;

interface PoolState {
  errors: number;
  deadlineMs: number;
}

const states = new WeakMap<pg.Pool, PoolState>();

/** Opens a pool with deadlines everywhere; it connects lazily, at its first query. */
export function openPostgresPool(connection: PostgresConnection, options: PostgresPoolOptions): pg.Pool {
  const connectMs = options.connectMs ?? DEFAULT_CONNECT_MS;
  const pool = new pg.Pool({
    ...(connection.url === null ? {} : { connectionString: connection.url }),
    max: options.max,
    application_name: `thread-host ${options.name}`,
    connectionTimeoutMillis: connectMs,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    statement_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    query_timeout: options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    keepAlive: true,
    // A pool of a worker must not keep its thread alive once the worker is done with it.
    allowExitOnIdle: true,
  });
  const state: PoolState = { errors: 0, deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS };
  states.set(pool, state);
  // Every client gets this listener for its whole life: a client checked out (by connect(), or
  // by a query in flight) has none of the pool's. An idle client's error also reaches the pool's
  // 'error' event, which must have a listener, but is counted here only once.
  pool.on('connect', (client) =>
    client.on('error', (error) => {
      state.errors += 1;
      options.log?.('warn', 'postgres connection error', { pool: options.name, error: error.message });
    }),
  );
  pool.on('error', () => undefined);
  return pool;
}

/** Connection errors the pool's clients reported since it opened. */
export function poolErrorCount(pool: pg.Pool): number {
  return states.get(pool)?.errors ?? 0;
}

/** The deadline of a call: its own, else the pool's default. */
export function deadlineOf(pool: pg.Pool, call: CallOptions | undefined): number {
  return call?.deadlineMs ?? states.get(pool)?.deadlineMs ?? DEFAULT_DEADLINE_MS;
}

/** A call that did not finish within its deadline; whether its statement took effect is unknown. */
export class PostgresDeadlineError extends Error {
  /** `endedBy` 'server': the server's statement_timeout ended it before the call's own deadline. */
  constructor(what: string, deadlineMs: number, endedBy: 'client' | 'server' = 'client') {
    super(
      endedBy === 'client'
        ? `postgres: ${what} did not finish within ${deadlineMs} ms`
        : `postgres: the server's statement_timeout ended ${what} (its deadline was ${deadlineMs} ms)`,
    );
    this.name = 'PostgresDeadlineError';
  }
}

/**
 * Runs one statement within `deadlineMs`, the wait for a connection included. A client whose
 * statement failed other than by the server's answer is discarded, not returned to the pool:
 * after a client-side timeout its connection may still be busy with the statement.
 * `prepareAs` names a statement run on every turn: each connection parses and plans it once, as
 * a prepared statement, instead of at every call (bench case `turn-sequential`, postgres).
 */
export async function queryWithin<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  deadlineMs: number,
  text: string,
  values: unknown[],
  prepareAs?: string,
): Promise<pg.QueryResult<Row>> {
  const started = performance.now();
  const client = await connectWithin(pool, deadlineMs);
  const remaining = Math.max(1, Math.ceil(deadlineMs - (performance.now() - started)));
  try {
    const result = await client.query<Row>({ text, values, query_timeout: remaining, ...(prepareAs === undefined ? {} : { name: prepareAs }) } as pg.QueryConfig);
    client.release();
    return result;
  } catch (error) {
    // The server's own refusal (a constraint, a cancelled statement) leaves the connection as
    // good as before; anything else may leave it mid-statement or broken.
    const answered = error instanceof pg.DatabaseError;
    client.release(!answered);
    if (answered && error.code === QUERY_CANCELED) throw new PostgresDeadlineError('a statement', deadlineMs, 'server');
    if (!answered && error instanceof Error && /timeout/i.test(error.message)) throw new PostgresDeadlineError('a statement', deadlineMs);
    throw error;
  }
}

/** A connection from `pool` within `deadlineMs`; one that arrives later goes back to the pool. */
export async function connectWithin(pool: pg.Pool, deadlineMs: number): Promise<pg.PoolClient> {
  const pending = pool.connect();
  try {
    return await withDeadline(pending, deadlineMs, systemClock, (): never => {
      throw new PostgresDeadlineError('waiting for a connection', deadlineMs);
    });
  } catch (error) {
    pending.then((client) => client.release(), () => undefined);
    // The pool's own wait (connectionTimeoutMillis) may end first: the same deadline, reported alike.
    if (error instanceof Error && !(error instanceof PostgresDeadlineError) && /^timeout exceeded when trying to connect/.test(error.message)) {
      throw new PostgresDeadlineError('waiting for a connection', deadlineMs);
    }
    throw error;
  }
}
