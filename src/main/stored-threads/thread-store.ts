// Which store holds the home's thread histories, as the request handlers see it: rollout files
// under <home>/sessions (the default, shared with the reference), or the PostgreSQL thread
// store (thread_store = "postgres", src/main/fleet/postgres-thread-store.ts). Handlers ask it
// where a thread's history is and where a new one goes; reading and writing happen off the
// main thread, in the stored-history worker and the thread's actor.
import type { HistoryLocation } from '../../common/history-location.js';
import type { PostgresConnection } from '../../common/postgres/postgres-connection.js';
import { rolloutPathFor } from '../../common/rollout/rollout-path.js';
import type { RolloutIndex } from './rollout-index.js';

export interface ThreadStore {
  readonly kind: 'files' | 'postgres';
  /** The PostgreSQL store's connection settings, for the workers that read and write it; null for files. */
  readonly postgres: PostgresConnection | null;
  /** Where an existing thread's history is; null when the store holds none for it. */
  locate(threadId: string): Promise<HistoryLocation | null>;
  /** Where a new thread's history will be written. */
  newThread(threadId: string, createdAtMs: number): HistoryLocation;
  /** Lets go of connections (shutdown). */
  close(): Promise<void>;
}

/** The home's rollout files, found through the host's index of them. */
export class FilesThreadStore implements ThreadStore {
  readonly kind = 'files';
  readonly postgres = null;

  constructor(
    private readonly home: string,
    private readonly rollouts: RolloutIndex,
  ) {}

  async locate(threadId: string): Promise<HistoryLocation | null> {
    const path = await this.rollouts.find(threadId);
    return path === null ? null : { store: 'files', path };
  }

  newThread(threadId: string, createdAtMs: number): HistoryLocation {
    return { store: 'files', path: rolloutPathFor(this.home, threadId, createdAtMs) };
  }

  async close(): Promise<void> {}
}
