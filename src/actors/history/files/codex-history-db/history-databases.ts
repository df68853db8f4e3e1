// The history databases this pool worker writes: one connection per database, opened on its
// first use and kept for the worker's life (a connection per thread would cost an open, and
// the schema checks, per resume).
import { CODEX_HISTORY_DB_ENV } from '../../../../common/codex-history-projection.js';
import { HistoryDatabase } from './history-database.js';

/**
 * How long a projection waits for another connection's write lock (the connection's busy
 * timeout) before it leaves the tail to the reference's own catch-up. The writer lock's
 * release after a turn waits for at most one such wait; the reference holds its own write
 * lock for milliseconds.
 */
export const PROJECTION_DEADLINE_MS = 250;

const databases = new Map<string, HistoryDatabase>();

/** The database named in this worker's environment, or null when the projection is off. */
export function configuredHistoryDatabase(env: NodeJS.ProcessEnv = process.env): HistoryDatabase | null {
  const path = env[CODEX_HISTORY_DB_ENV];
  if (path === undefined || path === '') return null;
  let database = databases.get(path);
  if (database === undefined) {
    database = new HistoryDatabase(path, PROJECTION_DEADLINE_MS);
    databases.set(path, database);
  }
  return database;
}
