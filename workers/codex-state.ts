// The codex-state worker: a plain worker_thread (not a pool worker) that the files store's host
// side (src/main/store/files/codex-state-mirror.ts) starts with the first change it mirrors
// into the reference's state and queue databases, so a start never loads it, nor
// better-sqlite3, before its first reply. It takes the changes one at a time, in order, and
// keeps one connection per database between them (src/codex-state/). The stored-history worker
// only reads; this one is the only writer of those databases in the host.
import { parentPort } from 'node:worker_threads';
import type { CodexStateReply, CodexStateRequest } from '../src/common/codex-db/codex-state-changes.js';
import { mapStackTraces } from '../src/common/stack-source-maps.js';
import { lowerThisThreadsPriority } from '../src/common/thread-priority.js';
import type { JobReply, JobRequest } from '../src/common/worker-jobs.js';
import { answerCodexState } from '../src/codex-state/codex-state-jobs.js';
import { CodexStateWriter } from '../src/codex-state/codex-state-writer.js';

// Stacks logged from this worker name the .ts sources, as the main thread's do.
mapStackTraces(new URL('../', import.meta.url));

// Below the main thread, as the other workers are: requests are answered first (thread-priority.ts).
lowerThisThreadsPriority();

const writer = new CodexStateWriter();

parentPort!.on('message', async ({ job, request }: JobRequest<CodexStateRequest>) => {
  const reply: JobReply<CodexStateReply> = { job, reply: await answerCodexState(writer, request) };
  parentPort!.postMessage(reply);
});
