// Where clients stopped reading each thread, in the threads row every host shares
// (migrations/0002): what thread/readState/update sets and every turn's end moves. This module
// owns those columns: every statement that writes them is here, or takes its assignments from
// here (a turn's end stored with its last lines, fenced-append.ts). The files
// store keeps the same fields in thread-host's own file (src/main/store/files/
// thread-read-states.ts). Each change is one statement computed from the row as it is then, so
// two hosts changing one thread never lose either change: a mark applies only at the revision the
// client saw (of two marks expecting one revision only the first applies), and a turn's end keeps
// an earlier first unread turn whoever set it.
import type pg from 'pg';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';

/** The first unread position as the row holds it (the files store's line shape). */
export type StoredUnread = { type: 'turn'; turn_id: string } | { type: 'thread_start' };

export interface StoredReceipt {
  /** null: read. */
  firstUnread: StoredUnread | null;
  /** null: nothing recorded yet (the reference's `initial:<thread id>`). */
  revision: string | null;
  lastPublishedTurn: string | null;
}

export interface ReceiptRow {
  read_first_unread: StoredUnread | null;
  read_revision: string | null;
  read_last_published_turn: string | null;
}

const RECEIPT = 'read_first_unread, read_revision, read_last_published_turn';

/** The receipt columns of a `threads` row, as selected by RECEIPT. */
export const receiptOf = (row: ReceiptRow): StoredReceipt => ({ firstUnread: row.read_first_unread, revision: row.read_revision, lastPublishedTurn: row.read_last_published_turn });

export interface Mark {
  firstUnread: StoredUnread | null;
  /** The revision the client saw; `initialRevision` stands for a thread with none recorded. */
  expectedRevision: string;
  initialRevision: string;
  newRevision: string;
}

/**
 * Marks the thread read or unread if its revision is still the one expected. Answers whether it
 * changed and the receipt now, or null when the store has no such thread.
 */
export async function markReceipt(pool: pg.Pool, threadId: string, mark: Mark, call?: CallOptions): Promise<{ changed: boolean; receipt: StoredReceipt } | null> {
  // The second half reads the row as it was before the first: it answers only when nothing changed.
  const result = await queryWithin<ReceiptRow & { changed: boolean }>(
    pool,
    deadlineOf(pool, call),
    `WITH marked AS (
       UPDATE threads SET read_first_unread = $2::jsonb, read_revision = $3
       WHERE thread_id = $1 AND coalesce(read_revision, $5) = $4
       RETURNING ${RECEIPT}
     )
     SELECT true AS changed, ${RECEIPT} FROM marked
     UNION ALL
     SELECT false, ${RECEIPT} FROM threads WHERE thread_id = $1 AND NOT EXISTS (SELECT 1 FROM marked)`,
    [threadId, json(mark.firstUnread), mark.newRevision, mark.expectedRevision, mark.initialRevision],
  );
  const row = result.rows[0];
  return row === undefined ? null : { changed: row.changed, receipt: receiptOf(row) };
}

/**
 * The assignments a turn's end makes to the `threads` row `row`, for an UPDATE of it: the
 * ended turn becomes the first unread one unless an earlier one still is, with the turn's
 * revision. `turnId` and `revision` name the statement's text parameters; a null turn leaves
 * the receipt as it was (the fenced append of lines that end no turn: fenced-append.ts, which
 * stores a turn's receipt with its last lines through these same assignments).
 */
export function turnEndAssignments(row: string, turnId: string, revision: string): string {
  return `read_first_unread = CASE WHEN ${turnId}::text IS NULL THEN ${row}.read_first_unread
        ELSE coalesce(${row}.read_first_unread, jsonb_build_object('type', 'turn', 'turn_id', ${turnId}::text)) END,
      read_revision = coalesce(${revision}::text, ${row}.read_revision),
      read_last_published_turn = coalesce(${turnId}::text, ${row}.read_last_published_turn)`;
}

/** A turn ended: the first unread one unless an earlier one still is. The receipt after it, or null when the store has no such thread. */
export async function recordTurnEnd(pool: pg.Pool, threadId: string, turnId: string, newRevision: string, call?: CallOptions): Promise<StoredReceipt | null> {
  const result = await queryWithin<ReceiptRow>(
    pool,
    deadlineOf(pool, call),
    `UPDATE threads t SET ${turnEndAssignments('t', '$3', '$2')}
     WHERE t.thread_id = $1 RETURNING ${RECEIPT}`,
    [threadId, newRevision, turnId],
  );
  const row = result.rows[0];
  return row === undefined ? null : receiptOf(row);
}

/**
 * The thread was reverted to the turns in `kept`: a first unread turn no longer in it leaves the
 * thread read, with a new revision. The receipt after it, or null when nothing changed.
 */
export async function recordRevert(pool: pg.Pool, threadId: string, kept: readonly string[], newRevision: string, call?: CallOptions): Promise<StoredReceipt | null> {
  const result = await queryWithin<ReceiptRow>(
    pool,
    deadlineOf(pool, call),
    `UPDATE threads SET read_first_unread = NULL, read_revision = $3
     WHERE thread_id = $1 AND read_first_unread->>'type' = 'turn' AND NOT (read_first_unread->>'turn_id' = ANY ($2::text[]))
     RETURNING ${RECEIPT}`,
    [threadId, kept, newRevision],
  );
  const row = result.rows[0];
  return row === undefined ? null : receiptOf(row);
}

/**
 * Gives the thread `receipt` if the store has recorded none for it (`fleet import` bringing a
 * home's state: never over one a host recorded). Answers whether it did and the receipt now, or
 * null when the store has no such thread.
 */
export async function adoptReceipt(pool: pg.Pool, threadId: string, receipt: StoredReceipt & { revision: string }, call?: CallOptions): Promise<{ changed: boolean; receipt: StoredReceipt } | null> {
  const result = await queryWithin<ReceiptRow & { changed: boolean }>(
    pool,
    deadlineOf(pool, call),
    `WITH adopted AS (
       UPDATE threads SET read_first_unread = $2::jsonb, read_revision = $3, read_last_published_turn = $4
       WHERE thread_id = $1 AND read_revision IS NULL
       RETURNING ${RECEIPT}
     )
     SELECT true AS changed, ${RECEIPT} FROM adopted
     UNION ALL
     SELECT false, ${RECEIPT} FROM threads WHERE thread_id = $1 AND NOT EXISTS (SELECT 1 FROM adopted)`,
    [threadId, json(receipt.firstUnread), receipt.revision, receipt.lastPublishedTurn],
  );
  const row = result.rows[0];
  return row === undefined ? null : { changed: row.changed, receipt: receiptOf(row) };
}

// SQL NULL for null: a jsonb 'null' would be a value, not "read".
const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));
