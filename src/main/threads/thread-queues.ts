// What the thread/queue/* handlers and the drain ask of the queued input, whichever store keeps
// it: thread-host's own files in the home (thread-queue-store.ts) or the PostgreSQL store's
// table every host shares (src/main/store/postgres/postgres-queues.ts). A change is an edit applied to
// the queue as the store holds it when the edit runs, never to an older copy, so two changes
// of one queue at once both apply, one after the other.
import type { QueuedSubmission, ThreadQueueStore } from './thread-queue-store.js';

/**
 * An edit of a queue: the queue after it (null: unchanged) and what the request answers. It
 * may throw (a submission not found): nothing changes then. It may run more than once, each
 * time on the queue as it is then.
 */
export type QueueEdit<T> = (queue: readonly QueuedSubmission[]) => { queue: QueuedSubmission[] | null; result: T };

export interface ThreadQueues {
  /** The queue if this host has it in memory: what a turn's end can tell without waiting. */
  peek(threadId: string): readonly QueuedSubmission[] | undefined;
  /** The queue as the store holds it now. */
  get(threadId: string): Promise<QueuedSubmission[]>;
  /** Applies `edit` to the queue; resolves with its result once the change is stored. */
  change<T>(threadId: string, edit: QueueEdit<T>): Promise<{ changed: boolean; result: T }>;
  /** Removes the thread's queue (thread/delete). */
  remove(threadId: string): Promise<void>;
}

/** The files store's queues: one host writes a home's queue files, so its own changes run one after another per thread. */
export class FilesThreadQueues implements ThreadQueues {
  readonly #changing = new Map<string, Promise<unknown>>();

  constructor(private readonly store: () => ThreadQueueStore) {}

  peek(threadId: string): readonly QueuedSubmission[] | undefined {
    return this.store().peek(threadId);
  }

  get(threadId: string): Promise<QueuedSubmission[]> {
    return this.store().get(threadId);
  }

  change<T>(threadId: string, edit: QueueEdit<T>): Promise<{ changed: boolean; result: T }> {
    const key = threadId.toLowerCase();
    const run = (this.#changing.get(key) ?? Promise.resolve()).catch(() => undefined).then(async () => {
      const { queue, result } = edit(await this.store().get(threadId));
      if (queue !== null) await this.store().replace(threadId, queue);
      return { changed: queue !== null, result };
    });
    this.#changing.set(key, run);
    void run.finally(() => {
      if (this.#changing.get(key) === run) this.#changing.delete(key);
    }).catch(() => undefined);
    return run;
  }

  remove(threadId: string): Promise<void> {
    return this.store().remove(threadId);
  }
}
