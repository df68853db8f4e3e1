// What clients change of a stored thread besides its history: its name, whether it is
// archived, and the thread itself going away (thread/name/set, thread/archive,
// thread/unarchive, thread/delete on the PostgreSQL thread store). Archiving and deleting are
// made under the thread's ownership, as the files store makes them holding the writer lock: the
// statement names the owner and epoch the caller acquired, so it does nothing for a caller
// another host has fenced out since. Renaming and unarchiving take no ownership, as on files.
import type pg from 'pg';
import type { StoredMetadata } from './metadata-patches.js';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';
import { receiptOf, type ReceiptRow, type StoredReceipt } from './read-receipts.js';

/** A thread's ownership, as acquired (thread-ownership.ts). */
export interface HeldThread {
  threadId: string;
  hostId: string;
  epoch: number;
}

export interface StoredThreadState {
  name: string | null;
  archived: boolean;
  /** The store holds the thread's first record (a thread started but never written has none). */
  written: boolean;
  /** Where clients stopped reading it (read-receipts.ts). */
  receipt: StoredReceipt;
  /** What thread/metadata/update set of it (metadata-patches.ts). */
  metadata: StoredMetadata;
}

/** What the store holds of the thread besides its history, or null when it has no such thread. */
export async function storedThreadState(pool: pg.Pool, threadId: string, call?: CallOptions): Promise<StoredThreadState | null> {
  const result = await queryWithin<Omit<StoredThreadState, 'receipt' | 'metadata'> & ReceiptRow & { git_info: StoredMetadata['gitInfo']; daybreak_enabled: boolean | null }>(
    pool,
    deadlineOf(pool, call),
    `SELECT t.name, t.archived_at IS NOT NULL AS archived,
            EXISTS (SELECT 1 FROM rollout_lines l WHERE l.thread_id = t.thread_id AND l.ordinal = 0) AS written,
            t.read_first_unread, t.read_revision, t.read_last_published_turn, t.git_info, t.daybreak_enabled
     FROM threads t WHERE t.thread_id = $1`,
    [threadId],
  );
  const row = result.rows[0];
  if (row === undefined) return null;
  return {
    name: row.name,
    archived: row.archived,
    written: row.written,
    receipt: receiptOf(row),
    metadata: { gitInfo: row.git_info, daybreakEnabled: row.daybreak_enabled },
  };
}

/** Names the thread; false when the store has no such thread. */
export async function renameThread(pool: pg.Pool, threadId: string, name: string, call?: CallOptions): Promise<boolean> {
  const result = await queryWithin(pool, deadlineOf(pool, call), 'UPDATE threads SET name = $2 WHERE thread_id = $1', [threadId, name]);
  return result.rowCount === 1;
}

/** Archives a live thread the caller holds; false when it was archived already or is no longer held. */
export async function archiveThread(pool: pg.Pool, held: HeldThread, call?: CallOptions): Promise<boolean> {
  const result = await queryWithin(
    pool,
    deadlineOf(pool, call),
    `UPDATE threads t SET archived_at = now()
     FROM thread_owners o
     WHERE t.thread_id = $1 AND t.archived_at IS NULL
       AND o.thread_id = t.thread_id AND o.owner_host = $2::uuid AND o.epoch = $3`,
    [held.threadId, held.hostId, held.epoch],
  );
  return result.rowCount === 1;
}

/**
 * Unarchives the thread, answering its name; null when it is not archived. Its update time
 * becomes now, as the files store sets the moved rollout's mtime (archived-rollouts.ts).
 */
export async function unarchiveThread(pool: pg.Pool, threadId: string, call?: CallOptions): Promise<{ name: string | null } | null> {
  const result = await queryWithin<{ name: string | null }>(
    pool,
    deadlineOf(pool, call),
    `UPDATE threads SET archived_at = NULL, updated_at = greatest(updated_at, date_trunc('milliseconds', now()))
     WHERE thread_id = $1 AND archived_at IS NOT NULL
     RETURNING name`,
    [threadId],
  );
  return result.rows[0] ?? null;
}

/**
 * Removes a thread the caller holds: its records, its ownership and the thread, in one
 * statement (so all or none of them go); false when it was no longer held.
 */
export async function deleteThread(pool: pg.Pool, held: HeldThread, call?: CallOptions): Promise<boolean> {
  const result = await queryWithin(
    pool,
    deadlineOf(pool, call),
    `WITH held AS (
       SELECT thread_id FROM thread_owners WHERE thread_id = $1 AND owner_host = $2::uuid AND epoch = $3 FOR UPDATE
     ), lines AS (
       DELETE FROM rollout_lines WHERE thread_id IN (SELECT thread_id FROM held)
     )
     DELETE FROM threads WHERE thread_id IN (SELECT thread_id FROM held)`,
    [held.threadId, held.hostId, held.epoch],
  );
  return result.rowCount === 1;
}
