// What the thread/queue/* handlers and the drain ask of the queued input, whichever store keeps
// it: thread-host's own files in the home (files/files-queues.ts) or the PostgreSQL store's
// table every host shares (postgres/postgres-queues.ts). A change is an edit applied to
// the queue as the store holds it when the edit runs, never to an older copy, so two changes
// of one queue at once both apply, one after the other.
import type { QueuedSubmission } from '../../common/codex-db/codex-state-changes.js';
import type { ThreadId } from '../../common/thread-id.js';

export type { QueuedSubmission };

/** What the drain may do with the queue's next submission. */
export type QueueVerdict = 'run' | 'hold';

/**
 * An edit of a queue: the queue after it (null: unchanged) and what the request answers. It
 * may throw (a submission not found): nothing changes then. It may run more than once, each
 * time on the queue as it is then.
 */
export type QueueEdit<T> = (queue: readonly QueuedSubmission[]) => { queue: QueuedSubmission[] | null; result: T };

export interface ThreadQueues {
  /** The queue if this host has it in memory: what a turn's end can tell without waiting. */
  peek(threadId: ThreadId): readonly QueuedSubmission[] | undefined;
  /** The queue as the store holds it now. */
  get(threadId: ThreadId): Promise<QueuedSubmission[]>;
  /** Applies `edit` to the queue; resolves with its result once the change is stored. */
  change<T>(threadId: ThreadId, edit: QueueEdit<T>): Promise<{ changed: boolean; result: T }>;
  /** Removes the thread's queue (thread/delete). */
  remove(threadId: ThreadId): Promise<void>;
  /**
   * Before the drain runs the queue's next submission: whether it may (the files store first
   * drops what the reference ran from its copy of the queue: codex-queue-reconcile.ts); `retry`
   * drains again later when it may not yet.
   */
  beforeRun(threadId: ThreadId, retry: () => void): Promise<QueueVerdict>;
}
