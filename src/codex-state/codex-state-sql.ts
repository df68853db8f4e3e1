// The statements codex 0.171.0 runs on its state and queue databases for the thread operations
// thread-host mirrors there, as measured against the binary (test/fixtures/codex-state-db,
// recorded by its record-reference-rows.mjs):
//
// - `thread/name/set` sets `threads.name` and moves `updated_at_ms` on by one millisecond
//   (`updated_at` and the recency columns stay); a thread with no row gets none.
// - `thread/readState/update` and each turn's end write the thread's whole receipt:
//   `first_unread_turn` NULL when read, '' for "unread from the thread's start", else a turn id.
// - `thread/queue/add` appends a row after the thread's highest `queue_order`; `update`
//   replaces `payload_json` and `updated_at_ms`; `reorder` moves every row, in the new order,
//   past the highest `queue_order`, all with one `updated_at_ms`; `delete` and starting queued
//   input delete the row. The queue's revision rows are kept by the database's own triggers.
// - `thread/delete` deletes the thread's `threads` row (what references it goes with it: the
//   schema's ON DELETE CASCADE), its receipt and every queued row of the thread.
export const STATE_SQL = {
  setName: 'UPDATE threads SET name = ?, updated_at_ms = updated_at_ms + 1 WHERE id = ?',
  upsertReceipt: `
INSERT INTO thread_read_receipts (thread_id, first_unread_turn, revision, last_published_turn)
VALUES (?, ?, ?, ?)
ON CONFLICT(thread_id) DO UPDATE SET
    first_unread_turn = excluded.first_unread_turn,
    revision = excluded.revision,
    last_published_turn = excluded.last_published_turn`,
  deleteReceipt: 'DELETE FROM thread_read_receipts WHERE thread_id = ?',
  deleteThread: 'DELETE FROM threads WHERE id = ?',
};

export const QUEUE_SQL = {
  insertItem: `
INSERT INTO queued_items (id, thread_id, payload_json, queue_order, created_at_ms, updated_at_ms)
SELECT @id, @thread, @payload, COALESCE(MAX(queue_order), -1) + 1, @now, @now
FROM queued_items
WHERE thread_id = @thread
ON CONFLICT(id) DO NOTHING`,
  selectPayload: 'SELECT payload_json FROM queued_items WHERE id = ? AND thread_id = ?',
  updatePayload: 'UPDATE queued_items SET payload_json = ?, updated_at_ms = ? WHERE id = ? AND thread_id = ?',
  moveToEnd: `
UPDATE queued_items
SET queue_order = (SELECT MAX(queue_order) + 1 FROM queued_items WHERE thread_id = @thread), updated_at_ms = @now
WHERE id = @id AND thread_id = @thread`,
  deleteItem: 'DELETE FROM queued_items WHERE id = ? AND thread_id = ?',
  // The reference deletes each row as it starts the row's input (and on thread/queue/delete):
  // a row thread-host wrote that is gone was run or deleted there (codex-queue-reconcile.ts).
  threadItemIds: 'SELECT id FROM queued_items WHERE thread_id = ?',
  deleteThreadItems: 'DELETE FROM queued_items WHERE thread_id = ?',
};
