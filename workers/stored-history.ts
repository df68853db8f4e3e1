// The stored-history worker: a plain worker_thread (not a pool worker) that the main thread
// starts with the first request that needs history from disk: a `thread/list` page, or
// `thread/read`, `thread/turns/list` or `thread/items/list` of a thread not loaded here. It
// keeps what it read of every rollout's head between listings
// (src/stored-reads/rollout-heads.ts), so the main thread never reads, parses or serializes
// stored history: on a home of thousands of rollouts, or for a thread of tens of megabytes,
// that stalled it for every request (bench cases `thread-list`, `stored-read`).
import { parentPort } from 'node:worker_threads';
import type { StoredHistoryReply, StoredHistoryRequest } from '../src/common/stored-history-messages.js';
import { PROGRESS_INTERVAL_MS, type JobProgress, type JobReply, type JobRequest } from '../src/common/worker-jobs.js';
import { mapStackTraces } from '../src/common/stack-source-maps.js';
import { lowerThisThreadsPriority } from '../src/common/thread-priority.js';
import { ListingMemory } from '../src/stored-reads/listing-memory.js';
import { answerStoredHistory } from '../src/stored-reads/stored-history-jobs.js';

// Stacks logged from this worker name the .ts sources, as the main thread's do.
mapStackTraces(new URL('../', import.meta.url));

// Below the main thread, as the pool workers are: requests are answered first (thread-priority.ts).
lowerThisThreadsPriority();

const memory = new ListingMemory();

/** Reports that `job` is still going, at most once per PROGRESS_INTERVAL_MS (its deadline restarts). */
function progressOf(job: number): () => void {
  let last = Date.now();
  return () => {
    const now = Date.now();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    const message: JobProgress = { job, progress: true };
    parentPort!.postMessage(message);
  };
}

parentPort!.on('message', async ({ job, request }: JobRequest<StoredHistoryRequest>) => {
  const reply: JobReply<StoredHistoryReply> = { job, reply: await answerStoredHistory(memory, request, progressOf(job)) };
  // An answer's bytes move to the main thread rather than being copied.
  parentPort!.postMessage(reply, reply.reply.kind === 'answer' ? [reply.reply.json.buffer as ArrayBuffer] : []);
});
