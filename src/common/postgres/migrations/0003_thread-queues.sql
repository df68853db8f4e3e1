-- Up Migration
-- The input queued for each thread (thread/queue/*), shared by every host of the fleet
-- (queued-input.ts); the files store keeps the same in <home>/thread-queues/.
-- submissions is the queue in its order, each element the wire's QueuedSubmission. version
-- changes with every write, from a sequence so that it never repeats, even for a queue removed
-- and queued again: a write applies only at the version its writer read.
CREATE SEQUENCE thread_queue_versions;
CREATE TABLE thread_queues (
  thread_id text PRIMARY KEY,
  submissions jsonb NOT NULL,
  version bigint NOT NULL
);
