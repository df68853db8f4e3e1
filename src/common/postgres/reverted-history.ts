// A thread's history replaced by what a `thread/revert` keeps of it. The files store never cuts
// a rollout: it starts a new file whose session_meta names the kept prefix of the previous one
// (src/actors/rollout-writer/revert-rollout.ts), and its reader sees that session_meta, then the
// kept lines. The store has no files to name, so the thread's rows become exactly what that
// reader sees, and the thread takes the new file's name and time (what thread/list sorts and
// shows by, and what an export names the file). It is one statement, fenced as an append is (the
// writer's epoch, and its host's live lease when given), so the history is the old one or the
// new one, never a mix, and a writer another host fenced out changes nothing. The first revert
// records the preview the thread's rows showed (`first_preview`): a thread's preview is its
// first message ever, which the files store reads from the thread's first file.
import type pg from 'pg';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';
import { headLinesIn } from './fenced-append.js';

export interface HistoryReplacement {
  threadId: string;
  hostId?: string;
  epoch: number;
  /** The whole new history: JSONL records without their newline. */
  lines: readonly string[];
  /** The new file's time and name, as the files store names it. */
  createdAtMs: number;
  rolloutName: string;
  /** The preview the replaced rows showed ('' for none). */
  previousPreview: string;
}

// Rows at ordinals both histories have are rewritten in place, the new history's others
// inserted and the old one's others deleted: disjoint sets of keys, so one statement does all.
const REPLACE = `
  WITH owner AS (
    UPDATE thread_owners o SET next_ordinal = cardinality($4::text[])
    WHERE o.thread_id = $1 AND o.epoch = $2
      AND ($3::uuid IS NULL OR (o.owner_host = $3::uuid
        AND EXISTS (SELECT 1 FROM hosts h WHERE h.host_id = $3::uuid AND h.lease_until > now())))
    RETURNING o.thread_id, o.epoch
  ), fresh AS (
    SELECT n - 1 AS ordinal, line FROM unnest($4::text[]) WITH ORDINALITY AS l(line, n)
  ), rewritten AS (
    UPDATE rollout_lines r SET line = f.line, epoch = owner.epoch
    FROM owner, fresh f WHERE r.thread_id = owner.thread_id AND r.ordinal = f.ordinal
  ), added AS (
    INSERT INTO rollout_lines (thread_id, ordinal, epoch, line)
    SELECT owner.thread_id, f.ordinal, owner.epoch, f.line FROM owner, fresh f
    WHERE NOT EXISTS (SELECT 1 FROM rollout_lines r WHERE r.thread_id = owner.thread_id AND r.ordinal = f.ordinal)
  ), dropped AS (
    DELETE FROM rollout_lines r USING owner WHERE r.thread_id = owner.thread_id AND r.ordinal >= cardinality($4::text[])
  ), renamed AS (
    UPDATE threads t SET created_at = timestamptz 'epoch' + $5::bigint * interval '1 millisecond',
      updated_at = date_trunc('milliseconds', now()), rollout_name = $6, head_end = $7,
      first_preview = coalesce(t.first_preview, nullif($8, ''))
    FROM owner WHERE t.thread_id = owner.thread_id
  )
  SELECT count(*)::int AS owned FROM owner`;

/** Replaces the thread's history; 'fenced' when the writer no longer holds it (nothing changed). */
export async function replaceHistory(pool: pg.Pool, replacement: HistoryReplacement, call?: CallOptions): Promise<'replaced' | 'fenced'> {
  for (const line of replacement.lines) {
    if (line.includes('\n')) throw new Error(`postgres: a rollout line of thread ${replacement.threadId} holds a newline`);
  }
  const result = await queryWithin<{ owned: number }>(pool, deadlineOf(pool, call), REPLACE, [
    replacement.threadId,
    replacement.epoch,
    replacement.hostId ?? null,
    replacement.lines,
    replacement.createdAtMs,
    replacement.rolloutName,
    headLinesIn(replacement.lines),
    replacement.previousPreview,
  ]);
  return (result.rows[0]?.owned ?? 0) > 0 ? 'replaced' : 'fenced';
}
