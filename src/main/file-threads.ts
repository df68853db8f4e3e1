// libuv's file threads (its thread pool, shared by every thread of the process) are created by
// whichever thread queues the first file operation, and on Linux a new thread takes the
// priority of the thread that creates it. The pool workers lower their own priority at start
// (common/thread-priority.ts); if one of them wrote the first rollout before the main thread
// touched a file asynchronously, every file thread ran lowered for the life of the process, and
// the main thread's own file work (cold-resume lookups, lockfile mkdirs) waited behind the
// workers. So the main thread queues one cheap file operation before it starts any worker.
import { access } from 'node:fs';

let started = false;

/** Makes sure libuv's file threads exist, created by this (the main) thread. Idempotent. */
export function ensureFileThreadsStarted(): void {
  if (started) return;
  started = true;
  access('/', () => undefined);
}
