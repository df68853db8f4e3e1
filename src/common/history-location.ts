// Where a thread's history is stored: a rollout file in the home (the reference's layout), or
// rows of the PostgreSQL thread store (thread_store = "postgres"). Requests about a thread that
// is not loaded here carry it to the stored-history worker, which reads either the same way:
// as the rollout's text, replayed by the same reader.
import type { PostgresConnection } from './postgres/postgres-connection.js';

export type HistoryLocation = { store: 'files'; path: string } | { store: 'postgres'; connection: PostgresConnection };

/** The rollout file's path, shown as a thread's `path`; null when the history is not a file. */
export const pathOf = (location: HistoryLocation | null): string | null => (location?.store === 'files' ? location.path : null);

/** How logs and errors name the history of `threadId`. */
export const describeLocation = (location: HistoryLocation, threadId: string): string =>
  location.store === 'files' ? location.path : `thread ${threadId} in the PostgreSQL thread store`;
