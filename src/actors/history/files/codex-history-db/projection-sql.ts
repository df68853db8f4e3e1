// The statements the reference's projection runs (codex-rs thread-store, `apply_change_set`
// and `apply_projection`), for the changes thread-host's records make. Applying them line by
// line, in ordinal order, is what makes a tail written in several transactions end in the rows
// one catch-up of the whole tail writes: each line's effect depends only on the rows before it.
//
// - A turn row keeps the ordinal and byte offset of the line that created it; later lines
//   update its status, error and times only while it is in progress with no end.
// - A terminal line fills `final_agent_item_id` with the turn's last agent message without a
//   phase (thread-host's messages have none); a user message fills `first_user_item_id` once.
// - A completed item keeps its first ordinal and times if it is ever seen again.
export const APPLY_SQL = {
  selectCheckpoint: `
SELECT next_rollout_byte_offset AS offset, next_rollout_ordinal AS ordinal
FROM thread_history_projection_state
WHERE thread_id = ?`,

  upsertCheckpoint: `
INSERT INTO thread_history_projection_state (thread_id, next_rollout_byte_offset, next_rollout_ordinal)
VALUES (?, ?, ?)
ON CONFLICT(thread_id) DO UPDATE SET
    next_rollout_byte_offset = excluded.next_rollout_byte_offset,
    next_rollout_ordinal = excluded.next_rollout_ordinal`,

  upsertTurn: `
INSERT INTO thread_turns (
    thread_id, turn_id, rollout_ordinal, rollout_byte_offset, rollout_end_ordinal, rollout_end_byte_offset,
    status, error_json, started_at, completed_at, duration_ms, root_turn_id
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(thread_id, turn_id) DO UPDATE SET
    rollout_end_ordinal = excluded.rollout_end_ordinal,
    rollout_end_byte_offset = excluded.rollout_end_byte_offset,
    status = excluded.status,
    error_json = excluded.error_json,
    started_at = excluded.started_at,
    completed_at = excluded.completed_at,
    duration_ms = excluded.duration_ms
WHERE thread_turns.rollout_end_ordinal IS NULL
  AND thread_turns.status = 'inProgress'`,

  fillTurnSummary: `
UPDATE thread_turns
SET
    first_user_item_id = COALESCE(
        first_user_item_id,
        (SELECT item_id FROM thread_items
         WHERE thread_id = @thread AND turn_id = @turn
           AND (item_type = 'userMessage' OR (item_type = '' AND json_extract(item_json, '$.type') = 'userMessage'))
         ORDER BY rollout_ordinal LIMIT 1)
    ),
    final_agent_item_id = COALESCE(
        (SELECT item_id FROM thread_items
         WHERE thread_id = @thread AND turn_id = @turn
           AND (item_type = 'agentMessage' OR (item_type = '' AND json_extract(item_json, '$.type') = 'agentMessage'))
           AND json_extract(item_json, '$.phase') = 'final_answer'
         ORDER BY rollout_ordinal DESC LIMIT 1),
        CASE
            WHEN status IN ('completed', 'interrupted', 'failed') THEN (
                SELECT item_id FROM thread_items
                WHERE thread_id = @thread AND turn_id = @turn
                  AND (item_type = 'agentMessage' OR (item_type = '' AND json_extract(item_json, '$.type') = 'agentMessage'))
                  AND json_extract(item_json, '$.phase') IS NULL
                ORDER BY rollout_ordinal DESC LIMIT 1
            )
        END,
        final_agent_item_id
    )
WHERE thread_id = @thread
  AND turn_id = @turn
  AND (rollout_end_ordinal = @ordinal OR status = 'inProgress')`,

  upsertItem: `
INSERT INTO thread_items (
    thread_id, turn_id, item_id, rollout_ordinal, updated_at_ordinal, created_at_ms,
    started_at_ms, completed_at_ms, item_type, item_json
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, json_extract(?, '$.type'), ?)
ON CONFLICT(thread_id, turn_id, item_id) DO UPDATE SET
    updated_at_ordinal = excluded.updated_at_ordinal,
    started_at_ms = COALESCE(thread_items.started_at_ms, excluded.started_at_ms),
    completed_at_ms = COALESCE(thread_items.completed_at_ms, excluded.completed_at_ms),
    item_type = excluded.item_type,
    item_json = excluded.item_json`,

  noteFirstUserItem: `
UPDATE thread_turns
SET first_user_item_id = COALESCE(first_user_item_id, ?)
WHERE thread_id = ? AND turn_id = ? AND rollout_end_ordinal IS NULL AND status = 'inProgress'`,
} as const;
