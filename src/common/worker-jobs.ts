// The envelope of every job a dedicated worker (src/main/dedicated-worker.ts) is posted and of
// its answer: the worker replies to each `{ job, request }` with `{ job, reply }`, in order.

/** Main → worker. */
export interface JobRequest<Request> {
  job: number;
  request: Request;
}

/** Worker → main. */
export interface JobReply<Reply> {
  job: number;
  reply: Reply;
}
