// The files store's queues: thread-host's own files in the home (queues/thread-queue-store.ts),
// mirrored into the reference's queue database (queues/queue-mirror-marks.ts) and reconciled
// with it before anything runs (queues/codex-queue-reconcile.ts).
import { KeyedMailbox } from '../../../common/keyed-mailbox.js';
import type { QueueEdit, QueueVerdict, ThreadQueues } from '../thread-queues.js';
import type { CodexQueueReconcile } from './queues/codex-queue-reconcile.js';
import type { QueueMirrorMarks } from './queues/queue-mirror-marks.js';
import type { QueuedSubmission, ThreadQueueStore } from './queues/thread-queue-store.js';
import type { ThreadId } from '../../../common/thread-id.js';

/** The files store's queues: one host writes a home's queue files, so its own changes run one after another per thread. */
export class FilesThreadQueues implements ThreadQueues {
  readonly #changing = new KeyedMailbox<string>();

  constructor(
    private readonly store: ThreadQueueStore,
    private readonly marks: QueueMirrorMarks,
    private readonly codexQueue: CodexQueueReconcile,
  ) {}

  peek(threadId: ThreadId): readonly QueuedSubmission[] | undefined {
    return this.store.peek(threadId);
  }

  get(threadId: ThreadId): Promise<QueuedSubmission[]> {
    return this.store.get(threadId);
  }

  change<T>(threadId: ThreadId, edit: QueueEdit<T>): Promise<{ changed: boolean; result: T }> {
    return this.#changing.post(threadId, async () => {
      const { queue, result } = edit(await this.store.get(threadId));
      if (queue !== null) await this.store.replace(threadId, queue);
      return { changed: queue !== null, result };
    });
  }

  /** The queue file and the marks of the rows its mirror wrote. */
  async remove(threadId: ThreadId): Promise<void> {
    await this.store.remove(threadId);
    await this.marks.remove(threadId);
  }

  beforeRun(threadId: ThreadId, retry: () => void): Promise<QueueVerdict> {
    return this.codexQueue.reconcile(threadId, retry);
  }
}
