// How the host tells its pool workers where the reference's paginated history database is,
// when they are to keep it current (README, "Sharing a home with codex"): the worker
// environment variable below holds its path; unset, the projection is off.
export const CODEX_HISTORY_DB_ENV = 'THREAD_HOST_CODEX_HISTORY_DB';

/** The reference's paginated history database, in its SQLite home. */
export const CODEX_HISTORY_DB_FILE = 'thread_history_1.sqlite';
