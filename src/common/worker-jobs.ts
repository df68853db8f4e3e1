// The envelope of every job a dedicated worker (src/main/dedicated-worker.ts) is posted and of
// its answer: the worker replies to each `{ job, request }` with `{ job, reply }`, in order, and
// may post `{ job, progress: true }` before it while the job goes on (each restarts its deadline).

/** Main → worker. */
export interface JobRequest<Request> {
  job: number;
  request: Request;
}

/** Worker → main: the job's answer. */
export interface JobReply<Reply> {
  job: number;
  reply: Reply;
}

/** Worker → main: the job is still going. */
export interface JobProgress {
  job: number;
  progress: true;
}

export type JobMessage<Reply> = JobReply<Reply> | JobProgress;

/** At most how often a worker reports progress: often enough for any deadline of seconds. */
export const PROGRESS_INTERVAL_MS = 1_000;
