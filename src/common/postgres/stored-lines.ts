// Reading what the store holds: a thread's rollout as the file it would be (the lines joined
// with newlines, each ended by one, byte for byte what the files store writes), and the
// threads in thread/list's order with the head of each (its session_meta up to its first user
// message, what a listing parses: src/stored-reads/head-reads.ts reads the same from a file).
//
// The listing's keys are the files store's: creation time is the rollout name's time (whole
// seconds), update time the last append's, both compared in milliseconds, the thread id
// breaking ties; a cursor is the last row's key, and a page holds the rows strictly after it.
import type pg from 'pg';
import type { HistoryMode } from '../rollout/rollout-reader.js';
import type { StoredMetadata } from './metadata-patches.js';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';
import { receiptOf, type ReceiptRow, type StoredReceipt } from './read-receipts.js';

/** The stored rollout of `threadId` from `fromOrdinal` on, as file text; null when the store has no such thread. */
export async function readRolloutText(pool: pg.Pool, threadId: string, options: CallOptions & { fromOrdinal?: number } = {}): Promise<string | null> {
  return (await readStoredHistory(pool, threadId, options))?.text ?? null;
}

export interface StoredHistoryText {
  text: string;
  /** The thread's first message ever, once a revert replaced its rows (reverted-history.ts); null before. */
  firstPreview: string | null;
}

/** As readRolloutText, with what a read shows of the thread beside its lines. */
export async function readStoredHistory(pool: pg.Pool, threadId: string, options: CallOptions & { fromOrdinal?: number } = {}): Promise<StoredHistoryText | null> {
  const result = await queryWithin<{ text: string | null; first_preview: string | null }>(
    pool,
    deadlineOf(pool, options),
    `SELECT (SELECT string_agg(line || E'\\n', '' ORDER BY ordinal) FROM rollout_lines WHERE thread_id = $1 AND ordinal >= $2) AS text, t.first_preview
     FROM threads t WHERE t.thread_id = $1`,
    [threadId, options.fromOrdinal ?? 0],
  );
  const row = result.rows[0];
  return row === undefined ? null : { text: row.text ?? '', firstPreview: row.first_preview };
}

export interface ListQuery {
  archived: boolean;
  /** By creation time (the default), or by update time. */
  byCreation: boolean;
  /** 1 ascending, -1 descending (the default). */
  direction: 1 | -1;
  /** Rows strictly after this (in `direction`): its time in ms, and thread id if it had one. */
  after: { at: number; id: string | null } | null;
  limit: number;
}

export interface ListedThread {
  threadId: string;
  createdAtMs: number;
  updatedAtMs: number;
  historyMode: HistoryMode | null;
  name: string | null;
  archivedAtMs: number | null;
  /** The reference's file name for the rollout, when known (an imported thread's own). */
  rolloutName: string | null;
  /** The leading lines up to and including the first user message, or every line while there is none yet. */
  head: string[];
  /** The head holds the first user message, so appends no longer change it. */
  headWhole: boolean;
  /** Where clients stopped reading it, and its metadata: a listing shows both. */
  receipt: StoredReceipt;
  metadata: StoredMetadata;
  /** Its first message ever, once a revert replaced its rows; null before (its rows show it). */
  firstPreview: string | null;
}

// A head without a user message yet is every line so far, up to this many: a thread that
// never got a message lists from its session_meta alone.
const OPEN_HEAD_LINES = 64;

/** One page of threads in `query`'s order, each with its head. */
export async function listThreads(pool: pg.Pool, query: ListQuery, call?: CallOptions): Promise<ListedThread[]> {
  const key = query.byCreation ? 't.created_at' : 't.updated_at';
  const order = query.direction === 1 ? 'ASC' : 'DESC';
  const past = query.direction === 1 ? '>' : '<';
  const values: unknown[] = [query.archived, query.limit];
  let cursor = '';
  if (query.after !== null) {
    values.push(query.after.at);
    cursor = `AND ${key} ${past} ${msToTimestamp('$3')}`;
    if (query.after.id !== null) {
      values.push(query.after.id);
      cursor = `AND (${key}, t.thread_id) ${past} (${msToTimestamp('$3')}, $4::text)`;
    }
  }
  const result = await queryWithin<ListedRow>(
    pool,
    deadlineOf(pool, call),
    `SELECT t.thread_id, ${msOf('t.created_at')} AS created_ms, ${msOf('t.updated_at')} AS updated_ms, t.history_mode, t.name,
            ${msOf('t.archived_at')} AS archived_ms, t.rollout_name, t.head_end, t.first_preview, ${FACTS('t.')},
            ARRAY(SELECT l.line FROM rollout_lines l
                  WHERE l.thread_id = t.thread_id AND l.ordinal < coalesce(t.head_end, ${OPEN_HEAD_LINES})
                  ORDER BY l.ordinal) AS head
     FROM threads t
     WHERE (t.archived_at IS NOT NULL) = $1 ${cursor}
     ORDER BY ${key} ${order}, t.thread_id ${order}
     LIMIT $2`,
    values,
  );
  return result.rows.map(listedThread);
}

function listedThread(row: ListedRow): ListedThread {
  return {
    threadId: row.thread_id,
    createdAtMs: Number(row.created_ms),
    updatedAtMs: Number(row.updated_ms),
    historyMode: row.history_mode,
    name: row.name,
    archivedAtMs: row.archived_ms === null ? null : Number(row.archived_ms),
    rolloutName: row.rollout_name,
    head: row.head,
    headWhole: row.head_end !== null,
    receipt: receiptOf(row),
    metadata: { gitInfo: row.git_info, daybreakEnabled: row.daybreak_enabled },
    firstPreview: row.first_preview,
  };
}

const FACTS = (table: string): string =>
  ['read_first_unread', 'read_revision', 'read_last_published_turn', 'git_info', 'daybreak_enabled'].map((column) => `${table}${column}`).join(', ');

interface ListedRow extends ReceiptRow {
  thread_id: string;
  created_ms: string;
  updated_ms: string;
  history_mode: HistoryMode | null;
  name: string | null;
  archived_ms: string | null;
  rollout_name: string | null;
  head_end: string | null;
  head: string[];
  git_info: StoredMetadata['gitInfo'];
  daybreak_enabled: boolean | null;
  first_preview: string | null;
}

// Whole milliseconds, as the files store compares them; the keys below compare the same way
// (truncated, not rounded), so a cursor taken from a row never skips or repeats its neighbours.
const msOf = (column: string): string => `floor(extract(epoch FROM ${column}) * 1000)::bigint`;
const msToTimestamp = (parameter: string): string => `(timestamptz 'epoch' + ${parameter}::bigint * interval '1 millisecond')`;

/** What the store says of one thread (not its lines), or null when it has no such thread. */
export async function storedThread(pool: pg.Pool, threadId: string, call?: CallOptions): Promise<Omit<ListedThread, 'head' | 'headWhole'> | null> {
  const result = await queryWithin<Omit<ListedRow, 'head_end' | 'head'>>(
    pool,
    deadlineOf(pool, call),
    `SELECT thread_id, ${msOf('created_at')} AS created_ms, ${msOf('updated_at')} AS updated_ms, history_mode, name,
            ${msOf('archived_at')} AS archived_ms, rollout_name, first_preview, ${FACTS('')}
     FROM threads WHERE thread_id = $1`,
    [threadId],
  );
  const row = result.rows[0];
  return row === undefined ? null : listedThread({ ...row, head_end: null, head: [] });
}
