// Time as an input: the supervisor, the lock poller and tests share this shape so unit
// tests advance a fake clock instead of sleeping.

/** A source of time and timers. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** A zero-delay timer of the real clock: the next iteration of the event loop, not Node's 1 ms minimum. */
class NextIteration {
  constructor(readonly immediate: NodeJS.Immediate) {}
}

/** The real clock. Timers are unref'd: a pending timer alone never keeps the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    if (ms <= 0) return new NextIteration(setImmediate(callback).unref());
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => {
    if (handle instanceof NextIteration) clearImmediate(handle.immediate);
    else clearTimeout(handle as NodeJS.Timeout);
  },
};
