// Closes of fenced actors (ones that can no longer write, so nothing waits on their close),
// posted once this event-loop iteration's output has been written, one message per worker.
//
// After the output: a worker woken while `thread/closed` is being written competes with the
// clients reading it for the cores (on two cores, posting the close first made an idle
// thread's `thread/closed` later; bench case `idle-unload`). afterOutputFlushed
// (scheduling.ts) says so, whichever was queued first; fenced-close-order.test.ts checks it.
//
// One message per worker: posting each close on its own cost the main thread comlink's id,
// message and clone apiece, which added up when many threads are unsubscribed at once (bench
// case `locked-unload`, K=32). Each close still gets its own answer: a close that failed fails
// alone.
import { afterOutputFlushed } from '../scheduling.js';

/** What a batched close needs of its worker. */
export interface ClosingLink {
  readonly alive: boolean;
  readonly api: { closeMany(threadIds: string[]): Promise<ReadonlyArray<'closed' | 'notFound' | 'failed'>> };
}

interface PendingClose {
  link: ClosingLink;
  threadId: string;
  resolve(answer: 'closed' | 'notFound'): void;
  reject(error: unknown): void;
}

export class CloseBatcher {
  #pending: PendingClose[] = [];

  /** @param closing true once the pool is shutting down: its proxies are released, and the workers' exit closes the files. */
  constructor(private readonly closing: () => boolean) {}

  /** Queues `threadId`'s close on `link` for the end of this iteration, after its output. */
  closeSoon(link: ClosingLink, threadId: string): Promise<'closed' | 'notFound'> {
    return new Promise((resolve, reject) => {
      if (this.#pending.length === 0) afterOutputFlushed(this.#postPending);
      this.#pending.push({ link, threadId, resolve, reject });
    });
  }

  /**
   * A new actor for a thread whose old one still owes its close: the close goes now, so the
   * worker closes the old incarnation, not the new one registered under the same id.
   */
  postOwed(threadId: string): void {
    const owed = this.#pending.filter((close) => close.threadId === threadId);
    if (owed.length === 0) return;
    this.#pending = this.#pending.filter((close) => close.threadId !== threadId);
    this.#post(owed);
  }

  readonly #postPending = (): void => {
    const closes = this.#pending;
    this.#pending = [];
    this.#post(closes);
  };

  #post(closes: PendingClose[]): void {
    const byWorker = new Map<ClosingLink, PendingClose[]>();
    for (const close of closes) {
      const batch = byWorker.get(close.link);
      if (batch === undefined) byWorker.set(close.link, [close]);
      else batch.push(close);
    }
    for (const [link, batch] of byWorker) {
      if (!link.alive || this.closing()) {
        for (const close of batch) close.resolve('notFound');
        continue;
      }
      const rejectAll = (error: unknown): void => {
        for (const close of batch) close.reject(error);
      };
      try {
        link.api.closeMany(batch.map((close) => close.threadId)).then((answers) => {
          batch.forEach((close, index) => {
            const answer = answers[index];
            if (answer === 'closed' || answer === 'notFound') close.resolve(answer);
            else close.reject(new Error(`the actor of ${close.threadId} failed to close its rollout`));
          });
        }, rejectAll);
      } catch (error) {
        rejectAll(error);
      }
    }
  }
}
