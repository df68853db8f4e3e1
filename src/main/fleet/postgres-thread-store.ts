// The PostgreSQL thread store as request handlers see it (thread_store = "postgres"): a thread
// exists when the store holds its history, and a new thread's history goes there. The main
// thread asks only "is there such a thread?" (a cold resume or a read of a thread not loaded
// here, which cannot be answered from memory), with a deadline; histories are read and written
// by the workers.
import type { Pool } from 'pg';
import type { HistoryLocation } from '../../common/history-location.js';
import type { PostgresConnection } from '../../common/postgres/postgres-connection.js';
import { queryWithin } from '../../common/postgres/postgres-connection.js';
import type { ThreadStore } from '../stored-threads/thread-store.js';

const LOOKUP_DEADLINE_MS = 10_000;

export class PostgresThreadStore implements ThreadStore {
  readonly kind = 'postgres';
  readonly #location: HistoryLocation;

  constructor(
    readonly postgres: PostgresConnection,
    private readonly pool: Pool,
    /** Retires this host's registration (shutdown), before the connections close. */
    private readonly leave: () => Promise<void>,
  ) {
    this.#location = { store: 'postgres', connection: postgres };
  }

  /** The thread's history, once its first record is stored (a thread started but never written has none, as with files). */
  async locate(threadId: string): Promise<HistoryLocation | null> {
    const result = await queryWithin<{ stored: boolean }>(
      this.pool,
      LOOKUP_DEADLINE_MS,
      'SELECT EXISTS (SELECT 1 FROM rollout_lines WHERE thread_id = $1 AND ordinal = 0) AS stored',
      [threadId],
    );
    return result.rows[0]?.stored === true ? this.#location : null;
  }

  newThread(): HistoryLocation {
    return this.#location;
  }

  /** Shutdown, once every thread was released: this host leaves the fleet, then its connections close. */
  async close(): Promise<void> {
    await this.leave();
    await this.pool.end();
  }
}
