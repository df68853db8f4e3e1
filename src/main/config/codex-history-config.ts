// Whether, and where, the host keeps the reference's paginated history database current
// (`codex_history_projection`, thread-host's key, default true). Host-wide and fixed for the
// process's life, read once at startup; a bad value stops the host there, as a bad lock
// backend does. Off on a `lockfile` home: that backend is for network homes, and SQLite's WAL
// mode, which the database uses, needs every process on one machine.
import { isAbsolute, join } from 'node:path';
import { CODEX_HISTORY_DB_FILE } from '../../common/codex-history-projection.js';
import { ConfigError, type ConfigDocument } from './config-document.js';
import type { WriterLockBackendConfig } from './lock-backend-config.js';

/** The database the pool workers are to keep current, or null when the projection is off. */
export function resolveCodexHistoryDatabase(
  document: ConfigDocument,
  home: string,
  env: NodeJS.ProcessEnv,
  backend: WriterLockBackendConfig,
): string | null {
  const value = document.codex_history_projection;
  if (value !== undefined && typeof value !== 'boolean') {
    throw ConfigError.at('codex_history_projection', 'invalid type: expected a boolean');
  }
  if (value === false || backend.kind === 'lockfile') return null;
  // The reference keeps its databases in its SQLite home, which can be moved.
  const sqliteHome = env.CODEX_SQLITE_HOME || (typeof document.sqlite_home === 'string' ? document.sqlite_home : '') || home;
  return join(isAbsolute(sqliteHome) ? sqliteHome : join(home, sqliteHome), CODEX_HISTORY_DB_FILE);
}
