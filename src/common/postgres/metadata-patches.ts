// What thread/metadata/update sets (a thread's Git facts and its Daybreak choice), in the
// threads row every host shares (migrations/0002). The files store keeps the same in
// thread-host's own file (src/main/store/files/thread-metadata.ts). A patch is applied by one
// statement to the row as it is then, so patches from two hosts both apply, field by field.
import type pg from 'pg';
import { deadlineOf, queryWithin, type CallOptions } from './postgres-connection.js';

/** The Git facts as the row holds them: members null or absent are not set. */
export interface StoredGitInfo {
  sha?: string | null;
  branch?: string | null;
  origin_url?: string | null;
}

export interface StoredMetadata {
  gitInfo: StoredGitInfo | null;
  daybreakEnabled: boolean | null;
}

/**
 * A patch as the client sends it: a Git member left out stays, null clears it (no Git patch at
 * all: null); a null Daybreak choice stays.
 */
export interface MetadataPatch {
  gitInfo: StoredGitInfo | null;
  daybreakEnabled: boolean | null;
}

/** Applies the patch; the metadata after it, or null when the store has no such thread. */
export async function patchMetadata(pool: pg.Pool, threadId: string, patch: MetadataPatch, call?: CallOptions): Promise<StoredMetadata | null> {
  // Members cleared drop out of the object, and an object left empty is no Git facts at all.
  const result = await queryWithin<{ git_info: StoredGitInfo | null; daybreak_enabled: boolean | null }>(
    pool,
    deadlineOf(pool, call),
    `UPDATE threads SET
       git_info = CASE WHEN $2::jsonb IS NULL THEN git_info
                       ELSE nullif(jsonb_strip_nulls(coalesce(git_info, '{}'::jsonb) || $2::jsonb), '{}'::jsonb) END,
       daybreak_enabled = coalesce($3, daybreak_enabled)
     WHERE thread_id = $1
     RETURNING git_info, daybreak_enabled`,
    [threadId, patch.gitInfo === null ? null : JSON.stringify(patch.gitInfo), patch.daybreakEnabled],
  );
  const row = result.rows[0];
  return row === undefined ? null : { gitInfo: row.git_info, daybreakEnabled: row.daybreak_enabled };
}

/**
 * Gives the thread `metadata` if the store has none set for it (`fleet import` bringing a home's
 * state: never over what a host set). Answers whether it did and the metadata now, or null when
 * the store has no such thread.
 */
export async function adoptMetadata(pool: pg.Pool, threadId: string, metadata: StoredMetadata, call?: CallOptions): Promise<{ changed: boolean; metadata: StoredMetadata } | null> {
  const result = await queryWithin<{ changed: boolean; git_info: StoredGitInfo | null; daybreak_enabled: boolean | null }>(
    pool,
    deadlineOf(pool, call),
    `WITH adopted AS (
       UPDATE threads SET git_info = nullif(jsonb_strip_nulls($2::jsonb), '{}'::jsonb), daybreak_enabled = $3
       WHERE thread_id = $1 AND git_info IS NULL AND daybreak_enabled IS NULL
       RETURNING git_info, daybreak_enabled
     )
     SELECT true AS changed, git_info, daybreak_enabled FROM adopted
     UNION ALL
     SELECT false, git_info, daybreak_enabled FROM threads WHERE thread_id = $1 AND NOT EXISTS (SELECT 1 FROM adopted)`,
    [threadId, metadata.gitInfo === null ? null : JSON.stringify(metadata.gitInfo), metadata.daybreakEnabled],
  );
  const row = result.rows[0];
  return row === undefined ? null : { changed: row.changed, metadata: { gitInfo: row.git_info, daybreakEnabled: row.daybreak_enabled } };
}
