-- Up Migration
-- The thread store's first schema (src/common/postgres/). Never migrated down: a host refuses
-- a schema newer than it knows instead (schema-migrations.ts).

-- One row per host process: its lease, judged by the database's clock alone.
CREATE TABLE hosts (
  host_id uuid PRIMARY KEY,
  endpoint text NOT NULL,
  lease_until timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now()
);

-- What thread/list shows and sorts by. updated_at moves with every append (fenced-append.ts);
-- head_end is the count of leading lines that hold the listing's head (session_meta up to the
-- first user message), null until that message is stored.
CREATE TABLE threads (
  thread_id text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  history_mode text CHECK (history_mode IN ('legacy', 'paginated')),
  name text,
  archived_at timestamptz,
  rollout_name text,
  head_end bigint
);
CREATE INDEX threads_by_created ON threads (created_at DESC, thread_id DESC);
CREATE INDEX threads_by_updated ON threads (updated_at DESC, thread_id DESC);

-- Who writes each thread, under which epoch (the fencing token), and where its next line goes.
-- A host's row going away (retired) releases its threads at once.
CREATE TABLE thread_owners (
  thread_id text PRIMARY KEY REFERENCES threads (thread_id) ON DELETE CASCADE,
  epoch bigint NOT NULL,
  owner_host uuid REFERENCES hosts (host_id) ON DELETE SET NULL,
  next_ordinal bigint NOT NULL DEFAULT 0
);

-- The rollout records, each the exact JSONL line the files store writes (without its newline).
-- No foreign key: only the fenced append writes here, for a thread it holds (and a key check
-- per line would be paid on every append).
CREATE TABLE rollout_lines (
  thread_id text NOT NULL,
  ordinal bigint NOT NULL,
  epoch bigint NOT NULL,
  line text NOT NULL,
  PRIMARY KEY (thread_id, ordinal)
);
