// Where a store keeps histories, as the workers that read and write them are told: a rollout
// file in the home (the reference's layout), or rows of the PostgreSQL thread store
// (thread_store = "postgres"). Only the stores look inside: the host's main thread builds these
// in src/main/store/, the workers open them into readers and writers (src/actors/history/,
// src/stored-reads/stored-source.ts). Everything else passes them along, by thread id.
import type { PostgresConnection } from './postgres/postgres-connection.js';

export type HistoryLocation = { store: 'files'; path: string } | { store: 'postgres'; connection: PostgresConnection };

/** Where thread/list pages come from: the home's rollout files, or the store's rows. */
export type ListingSource = { store: 'files'; home: string } | { store: 'postgres'; connection: PostgresConnection };

/** The rollout file's path, shown as a thread's `path`; null when the history is not a file. */
export const pathOf = (location: HistoryLocation | null): string | null => (location?.store === 'files' ? location.path : null);

/** How logs and errors name the history of `threadId`. */
export const describeLocation = (location: HistoryLocation, threadId: string): string =>
  location.store === 'files' ? location.path : `thread ${threadId} in the PostgreSQL thread store`;

/** How logs and errors name what a listing reads. */
export const describeListing = (source: ListingSource): string =>
  source.store === 'files' ? `the rollouts under ${source.home}/sessions` : 'the threads of the PostgreSQL thread store';

/** What a log line records of a listing's source: the home listed, or the store. */
export const listingLogFields = (source: ListingSource): Record<string, string> => (source.store === 'files' ? { home: source.home } : { store: 'postgres' });
