// The line-parser worker: a plain worker_thread (not a pool worker) that the main thread
// starts on the first input line too large to parse there. It decodes and parses each line it
// is sent with the main thread's own code (src/common/line-outcome.ts) and posts the outcome
// back in a form the main thread uses without parsing again.
import { parentPort } from 'node:worker_threads';
import type { ParseReply, ParseRequest } from '../src/common/line-parser-messages.js';
import type { JobReply, JobRequest } from '../src/common/worker-jobs.js';
import { parseLineBytes, type LineOutcome } from '../src/common/line-outcome.js';
import { toTransfer, transferList } from '../src/common/parsed-json-transfer.js';
import { mapStackTraces } from '../src/common/stack-source-maps.js';
import { lowerThisThreadsPriority } from '../src/common/thread-priority.js';

// Stacks logged from this worker name the .ts sources, as the main thread's do: frames in the
// files under the folder above this one (dist/ for tsc's output, dist/bundle/ for the bundle).
mapStackTraces(new URL('../', import.meta.url));

// Below the main thread, as the pool workers are: requests are answered first (thread-priority.ts).
lowerThisThreadsPriority();

/** The segments as one byte run (a line arrives as the pieces the transport read it in). */
function joined(segments: Uint8Array[]): Uint8Array {
  if (segments.length === 1) return segments[0]!;
  return Buffer.concat(segments);
}

function transferred(outcome: LineOutcome): ParseReply {
  return outcome.kind === 'parsed' ? { kind: 'parsed', parsed: toTransfer(outcome.parsed) } : outcome;
}

parentPort!.on('message', ({ job, request }: JobRequest<ParseRequest>) => {
  const outcome = transferred(parseLineBytes(joined(request.segments)));
  const reply: JobReply<ParseReply> = { job, reply: outcome };
  parentPort!.postMessage(reply, outcome.kind === 'parsed' ? transferList(outcome.parsed) : []);
});
