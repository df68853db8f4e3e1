// Which host writes each thread, with the epoch that fences every other writer out. Acquiring
// is one statement: it takes a thread whose owner is none, is this host, or is a host whose
// lease lapsed (by the database's clock), and bumps the epoch as it does; a thread a live host
// holds is left as it is. Concurrent acquisitions of one thread serialize on its row, and each
// re-checks the row it waited for, so exactly one of them wins.
//
// This host taking a thread it already holds succeeds with a new epoch: that fences out
// whatever writer of its own still held the old one.
//
// An archived thread is not taken unless the caller asks for it (thread/archive and
// thread/delete, which change the thread itself): a resume whose lookup found the thread live
// and another host archived it before the acquisition must not load it (the files store, whose
// rollout moved meanwhile, answers that resume as archived). The check is in the same statement
// as the take, so no archive can slip between them: archiving holds the ownership it checks.
import type pg from 'pg';
import type { HistoryMode } from '../rollout/rollout-reader.js';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';

export type Acquisition =
  | { kind: 'acquired'; epoch: number; nextOrdinal: number; historyMode: HistoryMode | null }
  | { kind: 'ownedElsewhere'; ownerHost: string; endpoint: string }
  | { kind: 'archived' }
  | { kind: 'notFound' };

export interface AcquireRequest {
  threadId: string;
  hostId: string;
  /** Create the thread if it does not exist; false never creates one. */
  create: boolean;
  /**
   * Take the thread even when it is archived (default false: answered `archived`). Creating
   * (`create`) takes an existing thread whatever its state: a new thread is never archived, and
   * an import takes again what it imported.
   */
  takeArchived?: boolean;
  /**
   * A thread created here: its history mode, its creation time (default: the database's now)
   * and the reference's file name for its rollout (what an export names the file).
   */
  historyMode?: HistoryMode | null;
  createdAtMs?: number | null;
  rolloutName?: string | null;
}

export interface ThreadOwner {
  epoch: number;
  /** null: released, nobody holds it. */
  ownerHost: string | null;
  endpoint: string | null;
  /** The owner's lease has not expired (false when there is no owner). */
  ownerLive: boolean;
  nextOrdinal: number;
  archived: boolean;
}

// The owner is gone, this host, or a host whose lease lapsed: the thread is free to take.
const FREE_TO_TAKE = `(o.owner_host IS NULL OR o.owner_host = $2::uuid OR NOT EXISTS (
  SELECT 1 FROM hosts h WHERE h.host_id = o.owner_host AND h.lease_until > now()))`;

// In whole milliseconds, as thread/list compares times (stored-lines.ts).
const CREATED_AT = `coalesce(timestamptz 'epoch' + $4::bigint * interval '1 millisecond', date_trunc('milliseconds', now()))`;

const CREATE_OR_TAKE = `
  WITH created AS (
    INSERT INTO threads (thread_id, history_mode, created_at, updated_at, rollout_name)
    VALUES ($1, $3, ${CREATED_AT}, ${CREATED_AT}, $5)
    ON CONFLICT (thread_id) DO NOTHING
    RETURNING history_mode
  )
  INSERT INTO thread_owners AS o (thread_id, epoch, owner_host, next_ordinal)
  VALUES ($1, 1, $2, 0)
  ON CONFLICT (thread_id) DO UPDATE SET epoch = o.epoch + 1, owner_host = EXCLUDED.owner_host
  WHERE ${FREE_TO_TAKE}
  RETURNING o.epoch, o.next_ordinal,
    coalesce((SELECT history_mode FROM created), (SELECT history_mode FROM threads WHERE thread_id = $1)) AS history_mode`;

const TAKE = `
  UPDATE thread_owners o SET epoch = o.epoch + 1, owner_host = $2
  FROM threads t
  WHERE o.thread_id = $1 AND t.thread_id = o.thread_id AND ${FREE_TO_TAKE}
    AND ($3::boolean OR t.archived_at IS NULL)
  RETURNING o.epoch, o.next_ordinal, t.history_mode`;

// A thread released or lapsed between the failed take and the look at its owner is tried again,
// at most this many times in all.
const ATTEMPTS = 3;

/** Takes `threadId` for `hostId` if no live host holds it; the new epoch fences every earlier writer. */
export async function acquireThread(pool: pg.Pool, request: AcquireRequest, call?: CallOptions): Promise<Acquisition> {
  const deadlineMs = deadlineOf(pool, call);
  for (let attempt = 1; ; attempt += 1) {
    const taken = request.create
      ? await queryWithin<AcquiredRow>(pool, deadlineMs, CREATE_OR_TAKE, [request.threadId, request.hostId, request.historyMode ?? null, request.createdAtMs ?? null, request.rolloutName ?? null])
      : await queryWithin<AcquiredRow>(pool, deadlineMs, TAKE, [request.threadId, request.hostId, request.takeArchived === true]);
    const row = taken.rows[0];
    if (row !== undefined) {
      return { kind: 'acquired', epoch: Number(row.epoch), nextOrdinal: Number(row.next_ordinal), historyMode: row.history_mode };
    }
    const owner = await ownerOf(pool, request.threadId, { deadlineMs });
    if (owner === null) return { kind: 'notFound' };
    if (owner.archived && !request.create && request.takeArchived !== true) return { kind: 'archived' };
    if (owner.ownerLive && owner.ownerHost !== null) return { kind: 'ownedElsewhere', ownerHost: owner.ownerHost, endpoint: owner.endpoint ?? '' };
    if (attempt === ATTEMPTS) throw new Error(`postgres: thread ${request.threadId} changed hands during ${ATTEMPTS} attempts to acquire it`);
  }
}

interface AcquiredRow {
  epoch: string;
  next_ordinal: string;
  history_mode: HistoryMode | null;
}

/** Gives `threadId` up, if `hostId` still holds it with `epoch`; false when it no longer did. */
export async function releaseThread(pool: pg.Pool, release: { threadId: string; hostId: string; epoch: number }, call?: CallOptions): Promise<boolean> {
  const result = await queryWithin(
    pool,
    deadlineOf(pool, call),
    `UPDATE thread_owners SET owner_host = NULL WHERE thread_id = $1 AND owner_host = $2 AND epoch = $3`,
    [release.threadId, release.hostId, release.epoch],
  );
  return result.rowCount === 1;
}

/** Who holds `threadId` now, or null when the store has no such thread. */
export async function ownerOf(pool: pg.Pool, threadId: string, call?: CallOptions): Promise<ThreadOwner | null> {
  const result = await queryWithin<{ epoch: string; owner_host: string | null; endpoint: string | null; owner_live: boolean; next_ordinal: string; archived: boolean }>(
    pool,
    deadlineOf(pool, call),
    `SELECT o.epoch, o.owner_host, h.endpoint, coalesce(h.lease_until > now(), false) AS owner_live, o.next_ordinal,
            t.archived_at IS NOT NULL AS archived
     FROM thread_owners o JOIN threads t ON t.thread_id = o.thread_id LEFT JOIN hosts h ON h.host_id = o.owner_host
     WHERE o.thread_id = $1`,
    [threadId],
  );
  const row = result.rows[0];
  if (row === undefined) return null;
  return { epoch: Number(row.epoch), ownerHost: row.owner_host, endpoint: row.endpoint, ownerLive: row.owner_live, nextOrdinal: Number(row.next_ordinal), archived: row.archived };
}
