// The input queued for threads on the PostgreSQL thread store (src/common/postgres/
// queued-input.ts): every host reads and changes one queue per thread, and it survives any
// host's restart. A change reads the queue with its version, applies the edit and writes it at
// that version, again on the newer queue when another host wrote in between. This host keeps
// the last queue it read or wrote of each thread for `peek` (a turn's end asks it without
// waiting); the queue-change listener (queue-change-listener.ts) refreshes it when another host
// changes a queue of a thread loaded here, so that the owner, which drains it, knows.
import type { Pool } from 'pg';
import { readQueue, removeQueue, writeQueue } from '../../../common/postgres/queued-input.js';
import type { QueuedSubmission, QueueEdit, QueueVerdict, ThreadQueues } from '../thread-queues.js';
import type { ThreadId } from '../../../common/thread-id.js';

const STATEMENT_DEADLINE_MS = 10_000;
// Writes lost to other hosts' before one applies: past this, the change fails (a queue that busy is a fault).
const ATTEMPTS = 8;

export class PostgresQueues implements ThreadQueues {
  readonly #known = new Map<string, QueuedSubmission[]>();

  constructor(
    private readonly pool: Pool,
    /** This host's name in the announcements of its changes. */
    readonly origin: string,
  ) {}

  peek(threadId: ThreadId): readonly QueuedSubmission[] | undefined {
    return this.#known.get(threadId);
  }

  async get(threadId: ThreadId): Promise<QueuedSubmission[]> {
    const { submissions } = await readQueue<QueuedSubmission>(this.pool, threadId, { deadlineMs: STATEMENT_DEADLINE_MS });
    this.#known.set(threadId, submissions);
    return [...submissions];
  }

  async change<T>(threadId: ThreadId, edit: QueueEdit<T>): Promise<{ changed: boolean; result: T }> {
    for (let attempt = 1; ; attempt += 1) {
      const stored = await readQueue<QueuedSubmission>(this.pool, threadId, { deadlineMs: STATEMENT_DEADLINE_MS });
      this.#known.set(threadId, stored.submissions);
      const { queue, result } = edit(stored.submissions);
      if (queue === null) return { changed: false, result };
      const change = { threadId, origin: this.origin, submissions: queue, expectedVersion: stored.version };
      if (await writeQueue(this.pool, change, { deadlineMs: STATEMENT_DEADLINE_MS })) {
        this.#known.set(threadId, queue);
        return { changed: true, result };
      }
      if (attempt === ATTEMPTS) throw new Error(`postgres: the queue of thread ${threadId} changed during ${ATTEMPTS} attempts to change it`);
    }
  }

  async remove(threadId: ThreadId): Promise<void> {
    await removeQueue(this.pool, { threadId, origin: this.origin }, { deadlineMs: STATEMENT_DEADLINE_MS });
    this.#known.delete(threadId);
  }

  /** The queue is the store's alone: no other copy of it may have run its input. */
  async beforeRun(): Promise<QueueVerdict> {
    return 'run';
  }
}
