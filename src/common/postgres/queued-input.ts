// The input queued for each thread (thread/queue/*), in the table every host shares
// (migrations/0003). A queue is read whole with its version and written whole at that version
// (optimistic: a write that finds another version changes nothing, and the caller reads again),
// so changes made through two hosts at once never lose either. Each write announces the thread
// on a notification channel, in the same statement, so it is sent exactly when the write
// commits: the host that owns the thread hears of input queued through another
// (src/main/store/postgres/queue-change-listener.ts).
import type pg from 'pg';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';

/** The channel queue changes are announced on; the payload is a QueueChange as JSON. */
export const QUEUE_CHANNEL = 'thread_host_queues';

export interface QueueChange {
  threadId: string;
  /** Who wrote it (a host's store), so a host can tell its own changes from others'. */
  origin: string;
}

export interface StoredQueue<Submission> {
  submissions: Submission[];
  /** 0: no queue stored. */
  version: number;
}

/** The thread's queue as stored now; empty at version 0 when it has none. */
export async function readQueue<Submission>(pool: pg.Pool, threadId: string, call?: CallOptions): Promise<StoredQueue<Submission>> {
  const result = await queryWithin<{ submissions: Submission[]; version: string }>(
    pool,
    deadlineOf(pool, call),
    'SELECT submissions, version FROM thread_queues WHERE thread_id = $1',
    [threadId],
  );
  const row = result.rows[0];
  return row === undefined ? { submissions: [], version: 0 } : { submissions: row.submissions, version: Number(row.version) };
}

/** Makes `submissions` the queue if it is still at `expectedVersion`; false when it changed meanwhile. */
export async function writeQueue<Submission>(
  pool: pg.Pool,
  change: QueueChange & { submissions: Submission[]; expectedVersion: number },
  call?: CallOptions,
): Promise<boolean> {
  const result = await queryWithin(
    pool,
    deadlineOf(pool, call),
    `WITH written AS (
       INSERT INTO thread_queues AS q (thread_id, submissions, version)
       SELECT $1, $2::jsonb, nextval('thread_queue_versions') WHERE $3::bigint = 0
       ON CONFLICT (thread_id) DO NOTHING
       RETURNING thread_id
     ), updated AS (
       UPDATE thread_queues SET submissions = $2::jsonb, version = nextval('thread_queue_versions')
       WHERE thread_id = $1 AND version = $3::bigint AND $3::bigint <> 0
       RETURNING thread_id
     )
     SELECT pg_notify('${QUEUE_CHANNEL}', $4) FROM (SELECT thread_id FROM written UNION ALL SELECT thread_id FROM updated) AS changed`,
    [change.threadId, JSON.stringify(change.submissions), change.expectedVersion, JSON.stringify({ threadId: change.threadId, origin: change.origin })],
  );
  return result.rowCount === 1;
}

/** Removes the thread's queue (thread/delete), announcing it. */
export async function removeQueue(pool: pg.Pool, change: QueueChange, call?: CallOptions): Promise<void> {
  await queryWithin(
    pool,
    deadlineOf(pool, call),
    `WITH removed AS (DELETE FROM thread_queues WHERE thread_id = $1 RETURNING thread_id)
     SELECT pg_notify('${QUEUE_CHANNEL}', $2) FROM removed`,
    [change.threadId, JSON.stringify(change)],
  );
}
