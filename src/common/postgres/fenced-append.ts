// The only way rollout lines enter the store: one statement that advances the thread's next
// ordinal only if the writer's epoch and expected ordinal still match, inserts the lines from
// that update's result, and moves the thread's updated_at (and, for a turn's last lines, its
// read receipt), all or nothing. A writer whose epoch
// was overtaken (another host took the thread) or whose view of the ordinal is stale matches no
// row and writes nothing: the store itself fences it, however late its statement arrives.
// Given the writer's host, the append also requires that host to hold the thread with a lease
// not yet expired, so a host woken after its lease lapsed writes nothing even before another
// host took over.
//
// updated_at keeps whole milliseconds, as thread/list compares times (stored-lines.ts).
//
// After a failure whose outcome is unknown (a deadline, a connection lost while the statement
// was in flight), `cutBackAppend` removes whatever of the batch landed, under the same epoch.
import type pg from 'pg';
import type { TurnEndReceipt } from '../turn-end-revision.js';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';
import { turnEndAssignments } from './read-receipts.js';

export interface AppendRequest {
  threadId: string;
  /** The writer's host; when given, the append also requires it to hold the thread with a live lease. */
  hostId?: string;
  epoch: number;
  /** The ordinal the first line takes: the writer's count of lines already stored. */
  expectedNext: number;
  /** JSONL records without their newline. */
  lines: readonly string[];
  /**
   * A turn ends with these lines: its read receipt is stored in the same statement, with
   * read-receipts.ts's assignments for a turn's end (an earlier first unread turn is kept).
   */
  readReceipt?: TurnEndReceipt | null;
}

export type AppendOutcome = { kind: 'appended'; nextOrdinal: number } | { kind: 'fenced'; epochNow: number; nextNow: number };

export interface AppendState {
  epoch: number;
  nextOrdinal: number;
}

// The listing's head of a rollout ends with its first user message: legacy rollouts record it
// as a user_message event, paginated ones as an item_completed holding a UserMessage item
// (the same markers src/stored-reads/head-reads.ts finds in a file).
const USER_MESSAGE_EVENT = '"type":"user_message"';
const ITEM_COMPLETED = '"type":"item_completed"';
const USER_MESSAGE_ITEM = '"type":"UserMessage"';

const APPEND = `
  WITH advanced AS (
    UPDATE thread_owners o SET next_ordinal = o.next_ordinal + cardinality($4::text[])
    WHERE o.thread_id = $1 AND o.epoch = $2 AND o.next_ordinal = $3
      AND ($5::uuid IS NULL OR (o.owner_host = $5::uuid
        AND EXISTS (SELECT 1 FROM hosts h WHERE h.host_id = $5::uuid AND h.lease_until > now())))
    RETURNING o.thread_id, o.epoch, o.next_ordinal
  ), written AS (
    INSERT INTO rollout_lines (thread_id, ordinal, epoch, line)
    SELECT a.thread_id, $3 + l.n - 1, a.epoch, l.line
    FROM advanced a, unnest($4::text[]) WITH ORDINALITY AS l(line, n)
  ), touched AS (
    UPDATE threads t SET updated_at = date_trunc('milliseconds', now()), head_end = coalesce(t.head_end, $3 + $6::bigint),
      ${turnEndAssignments('t', '$7', '$8')}
    FROM advanced a WHERE t.thread_id = a.thread_id
  )
  SELECT next_ordinal FROM advanced`;

/** The append's prepared-statement name: every execution of it on the wire carries it. */
export const APPEND_STATEMENT_NAME = 'thread-host fenced append';

/** Appends `lines` at `expectedNext` under `epoch`, or writes nothing and says the thread's state now. */
export async function appendLines(pool: pg.Pool, request: AppendRequest, call?: CallOptions): Promise<AppendOutcome> {
  for (const line of request.lines) {
    if (line.includes('\n')) throw new Error(`postgres: a rollout line of thread ${request.threadId} holds a newline`);
  }
  const deadlineMs = deadlineOf(pool, call);
  const result = await queryWithin<{ next_ordinal: string }>(pool, deadlineMs, APPEND, [
    request.threadId,
    request.epoch,
    request.expectedNext,
    request.lines,
    request.hostId ?? null,
    headLinesIn(request.lines),
    request.readReceipt?.turnId ?? null,
    request.readReceipt?.revision ?? null,
  ], APPEND_STATEMENT_NAME);
  const row = result.rows[0];
  if (row !== undefined) return { kind: 'appended', nextOrdinal: Number(row.next_ordinal) };
  const now = await appendState(pool, request.threadId, { deadlineMs });
  return { kind: 'fenced', epochNow: now?.epoch ?? 0, nextNow: now?.nextOrdinal ?? 0 };
}

/** The thread's epoch and next ordinal as stored, or null when the store has no such thread. */
export async function appendState(pool: pg.Pool, threadId: string, call?: CallOptions): Promise<AppendState | null> {
  const result = await queryWithin<{ epoch: string; next_ordinal: string }>(
    pool,
    deadlineOf(pool, call),
    `SELECT epoch, next_ordinal FROM thread_owners WHERE thread_id = $1`,
    [threadId],
  );
  const row = result.rows[0];
  return row === undefined ? null : { epoch: Number(row.epoch), nextOrdinal: Number(row.next_ordinal) };
}

// Removes what a writer's batch of unknown outcome may have left, under the same conditions an
// append has: only the writer that still holds the epoch moves the thread back.
const CUT_BACK = `
  WITH owner AS (
    UPDATE thread_owners SET next_ordinal = $3 WHERE thread_id = $1 AND epoch = $2 RETURNING thread_id
  ), removed AS (
    DELETE FROM rollout_lines r USING owner WHERE r.thread_id = owner.thread_id AND r.ordinal >= $3 RETURNING 1
  )
  SELECT (SELECT count(*) FROM owner)::int AS owned`;

/**
 * After an append whose outcome is unknown (its deadline passed, its connection dropped): puts
 * the thread's history back to the `from` lines the writer knows landed, whether the batch was
 * committed or not, so the next append starts where the writer thinks it does. 'fenced': the
 * writer's epoch is no longer the thread's, and nothing was changed.
 */
export async function cutBackAppend(pool: pg.Pool, request: { threadId: string; epoch: number; from: number }, call?: CallOptions): Promise<'cutBack' | 'fenced'> {
  const result = await queryWithin<{ owned: number }>(pool, deadlineOf(pool, call), CUT_BACK, [request.threadId, request.epoch, request.from]);
  return (result.rows[0]?.owned ?? 0) > 0 ? 'cutBack' : 'fenced';
}

/** How many of `lines` lead up to and include the first user message, or null when none holds one. */
export function headLinesIn(lines: readonly string[]): number | null {
  const at = lines.findIndex(
    (line) => line.includes(USER_MESSAGE_EVENT) || (line.includes(USER_MESSAGE_ITEM) && line.includes(ITEM_COMPLETED)),
  );
  return at === -1 ? null : at + 1;
}
