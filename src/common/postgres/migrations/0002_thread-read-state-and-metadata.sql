-- Up Migration
-- What thread/readState/update and thread/metadata/update set, shared by every host of the
-- fleet (thread-facts.ts). The files store keeps the same in thread-host's own files in the home
-- (src/main/store/files/thread-read-states.ts, thread-metadata.ts); the fields are theirs.

-- The read receipt: read_revision null means none recorded yet (the reference's
-- `initial:<thread id>`, read); read_first_unread null means read, else
-- {"type":"turn","turn_id":"…"} or {"type":"thread_start"}.
ALTER TABLE threads ADD COLUMN read_first_unread jsonb;
ALTER TABLE threads ADD COLUMN read_revision text;
ALTER TABLE threads ADD COLUMN read_last_published_turn text;

-- The metadata: git_info {"sha":…,"branch":…,"origin_url":…} with null members left out (null:
-- none), daybreak_enabled null when never set.
ALTER TABLE threads ADD COLUMN git_info jsonb;
ALTER TABLE threads ADD COLUMN daybreak_enabled boolean;
