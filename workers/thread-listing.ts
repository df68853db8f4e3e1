// The thread-listing worker: a plain worker_thread (not a pool worker) that the main thread
// starts with the first `thread/list`. It keeps what it read of every rollout's head between
// listings (src/listing/rollout-heads.ts) and answers each query with one page, so the main
// thread never reads or parses a head: on a home of thousands of rollouts that was hundreds
// of milliseconds of its time a listing.
import { parentPort } from 'node:worker_threads';
import type { ThreadPageQuery, ThreadPageReply } from '../src/common/thread-listing-messages.js';
import type { JobReply, JobRequest } from '../src/common/worker-jobs.js';
import { mapStackTraces } from '../src/common/stack-source-maps.js';
import { lowerThisThreadsPriority } from '../src/common/thread-priority.js';
import { RolloutHeads } from '../src/listing/rollout-heads.js';
import { listThreadPage } from '../src/listing/thread-page.js';

// Stacks logged from this worker name the .ts sources, as the main thread's do.
mapStackTraces(new URL('../', import.meta.url));

// Below the main thread, as the pool workers are: requests are answered first (thread-priority.ts).
lowerThisThreadsPriority();

const heads = new RolloutHeads();

function answer(query: ThreadPageQuery): ThreadPageReply {
  try {
    return listThreadPage(heads, query);
  } catch (error) {
    // Each head is kept or forgotten whole, so what is kept stays true after a failed listing.
    return { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort!.on('message', ({ job, request }: JobRequest<ThreadPageQuery>) => {
  const reply: JobReply<ThreadPageReply> = { job, reply: answer(request) };
  parentPort!.postMessage(reply);
});
