// Pool workers, and the dedicated line-parser and stored-history workers, run below the main
// thread's CPU priority. On a host with fewer cores than busy threads (two pool workers,
// libuv's file threads, the model's and the clients' processes), the kernel otherwise shares
// the CPU evenly, and a request that the main thread answers from memory in microseconds
// waits out a worker's time slice: the loaded/list p99 rises while turns or lock waits keep the
// workers busy (bench cases `turn-concurrent`, `resume-under-lock`). A worker that runs at a
// lower priority still gets every
// idle cycle; it only yields when the main thread has work, which is the promise of this
// host: request handling never stalls behind other work.
//
// Linux schedules threads individually, and setpriority(2) given a thread id changes that
// thread only; Node does not expose a thread's id, but /proc/thread-self names it. Elsewhere,
// or where the kernel refuses, the worker keeps the default priority.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** How much lower than the main thread (nice +5: about a third of its CPU share under contention). */
export const WORKER_NICENESS = 5;

/** Lowers the calling thread's priority by WORKER_NICENESS; returns its kernel thread id, or null where not possible. */
export function lowerThisThreadsPriority(niceness = WORKER_NICENESS): number | null {
  try {
    // "/proc/thread-self" → "<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return null;
    setPriority(tid, niceness);
    return tid;
  } catch {
    return null;
  }
}
