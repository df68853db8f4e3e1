-- Up Migration
-- A thread's preview is its first message ever, whatever was reverted since (the files store
-- reads it from the thread's first file, src/common/rollout/thread-preview.ts). A revert replaces
-- the thread's rows (reverted-history.ts), so the first one records the preview the rows had:
-- null for a thread never reverted (its rows show its preview).
ALTER TABLE threads ADD COLUMN first_preview text;
