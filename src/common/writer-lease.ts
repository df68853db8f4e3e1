// A writer lock's lease, shared between the main thread (which keeps the lock alive) and the
// actor that writes the thread's rollout (which must stop when the lock may be gone). It is one
// 64-bit integer in shared memory: the wall-clock millisecond until which the lock is surely
// still ours. The main thread pushes it forward at every successful heartbeat; the actor's
// appender reads it right before each write(2). So a host whose heartbeat stalled (a process
// paused longer than the stale time, an event loop blocked, a network home unreachable) stops
// writing on its own, before another host can judge the lock stale, without waiting for the
// main thread to notice and send a message. flock locks have no lease (null): they cannot expire.

/** The shared cell; structured clone shares it with the worker instead of copying. */
export type WriterLease = SharedArrayBuffer;

/** A lease valid until `untilMs` (epoch milliseconds). */
export function createLease(untilMs: number): WriterLease {
  const lease = new SharedArrayBuffer(8);
  Atomics.store(new BigInt64Array(lease), 0, BigInt(Math.floor(untilMs)));
  return lease;
}

/** Moves the expiry to `untilMs`, never backwards (heartbeats may complete out of order). */
export function extendLease(lease: WriterLease, untilMs: number): void {
  const cell = new BigInt64Array(lease);
  const next = BigInt(Math.floor(untilMs));
  for (;;) {
    const current = Atomics.load(cell, 0);
    if (current === 0n || current >= next) return;
    if (Atomics.compareExchange(cell, 0, current, next) === current) return;
  }
}

/** Ends the lease for good (the lock was lost or released). */
export function endLease(lease: WriterLease): void {
  Atomics.store(new BigInt64Array(lease), 0, 0n);
}

/** Epoch milliseconds until which writing is allowed; 0 once ended. */
export function leaseExpiry(lease: WriterLease): number {
  return Number(Atomics.load(new BigInt64Array(lease), 0));
}
