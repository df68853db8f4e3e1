// The host's limit on commands running at once: a counting semaphore whose waiters queue in
// arrival order, each with a deadline and an abort signal, so a queued command never waits
// for ever and an interrupted one leaves the queue at once.

/** How a wait for a slot ended. */
export type SlotWait = 'acquired' | 'timedOut' | 'aborted';

interface Waiter {
  grant(): void;
}

export class CommandSlots {
  private running = 0;
  private readonly waiters: Waiter[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`command slot limit must be a positive integer, got ${limit}`);
  }

  get inUse(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiters.length;
  }

  /** Takes a slot, waiting up to `deadlineMs`; on 'acquired' the caller must `release()` once. */
  acquire(deadlineMs: number, signal?: AbortSignal): Promise<SlotWait> {
    if (signal?.aborted === true) return Promise.resolve('aborted');
    if (this.running < this.limit && this.waiters.length === 0) {
      this.running += 1;
      return Promise.resolve('acquired');
    }
    return new Promise((resolve) => {
      const leave = (outcome: SlotWait): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        resolve(outcome);
      };
      const waiter: Waiter = {
        grant: () => {
          this.running += 1;
          leave('acquired');
        },
      };
      const onAbort = (): void => leave('aborted');
      const timer = setTimeout(() => leave('timedOut'), deadlineMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Gives a slot back; the longest waiter, if any, gets it. */
  release(): void {
    this.running -= 1;
    this.waiters[0]?.grant();
  }
}
