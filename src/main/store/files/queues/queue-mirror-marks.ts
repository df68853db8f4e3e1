// Which of a thread's queued submissions have had a row in the reference's queue database
// (queue_1.sqlite) written by thread-host's mirror: the reference runs such a row, and deletes
// it, when it resumes the thread, so thread-host must not run the same input again from its
// own queue (codex-queue-reconcile.ts asks whether the row is still there first). Input whose
// row was never written (no database, the database busy past the mirror's deadline, a kind
// the mirror has no row for) is the reference's to see nowhere, and runs here as before.
//
// Durable beside the queue itself: `<home>/thread-queue-mirror/<thread id>.json`,
//   {"threadId":"…","mirrored":["<queued submission id>",…]}
// replaced whole and atomically (a temporary file, then a rename), read the first time a
// thread's marks are asked for. A mark is written only once the mirror's transaction that
// wrote the row committed, and each queue change keeps only the marks of submissions still
// queued. Kept apart from thread-queues/ so the queue's own store stays as it is.
import { join } from 'node:path';
import type { QueuedSubmission } from '../../../../common/codex-db/codex-state-changes.js';
import { KeyedMailbox } from '../../../../common/keyed-mailbox.js';
import { fsPromises } from '../../../lazy-builtin.js';
import { withFsDeadline } from '../fs-deadline.js';
import type { CodexStateMirror } from '../codex-state-mirror.js';
import type { ThreadId } from '../../../../common/thread-id.js';

export class QueueMirrorMarks {
  readonly #dir: string;
  readonly #marks = new Map<string, ReadonlySet<string>>();
  /** Each thread's reads and writes, chained so a record always starts from the last one. */
  readonly #chains = new KeyedMailbox<string>();
  #writeCount = 0;

  constructor(home: string) {
    this.#dir = join(home, 'thread-queue-mirror');
  }

  /** The submissions of the thread whose rows the mirror wrote (only those still queued matter). */
  get(threadId: ThreadId): Promise<ReadonlySet<string>> {
    const key = threadId;
    return this.#chained(key, () => this.#current(key));
  }

  /**
   * After a queue change: the marks of submissions no longer `queued` go, those in `rows`
   * (written by the change's mirror) are added. Resolves once that is on disk.
   */
  record(threadId: ThreadId, queued: readonly string[], rows: readonly string[]): Promise<void> {
    const key = threadId;
    return this.#chained(key, async () => {
      const before = await this.#current(key);
      const still = new Set(queued);
      const after = new Set([...before].filter((id) => still.has(id)));
      for (const id of rows) after.add(id);
      if (after.size === before.size && [...after].every((id) => before.has(id))) return;
      this.#marks.set(key, after);
      await this.#write(key, threadId, after);
    });
  }

  /** Forgets the thread's marks (thread/delete). */
  remove(threadId: ThreadId): Promise<void> {
    const key = threadId;
    return this.#chained(key, async () => {
      this.#marks.set(key, new Set());
      await withFsDeadline(fsPromises().rm(this.#file(key), { force: true }), `removing the queue marks of thread ${threadId}`);
    });
  }

  #chained<T>(key: string, step: () => Promise<T>): Promise<T> {
    return this.#chains.post(key, step);
  }

  async #current(key: string): Promise<ReadonlySet<string>> {
    const known = this.#marks.get(key);
    if (known !== undefined) return known;
    // An absent file is no marks; one that cannot be read fails the drain (which logs it and
    // runs nothing): taking it for none could run input the reference ran.
    const reading = fsPromises()
      .readFile(this.#file(key), 'utf8')
      .catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
    const text = await withFsDeadline(reading, `reading the queue marks of thread ${key}`);
    const parsed = text === null ? {} : (JSON.parse(text) as { mirrored?: unknown });
    const marks = new Set(Array.isArray(parsed.mirrored) ? parsed.mirrored.filter((id): id is string => typeof id === 'string') : []);
    this.#marks.set(key, marks);
    return marks;
  }

  async #write(key: string, threadId: ThreadId, marks: ReadonlySet<string>): Promise<void> {
    const fs = fsPromises();
    const writing = (async () => {
      if (marks.size === 0) return fs.rm(this.#file(key), { force: true });
      await fs.mkdir(this.#dir, { recursive: true });
      const temporary = `${this.#file(key)}.${process.pid}.${++this.#writeCount}.tmp`;
      await fs.writeFile(temporary, JSON.stringify({ threadId, mirrored: [...marks] }));
      await fs.rename(temporary, this.#file(key));
    })();
    await withFsDeadline(writing, `writing the queue marks of thread ${threadId}`);
  }

  #file(key: string): string {
    return join(this.#dir, `${key}.json`);
  }
}

/**
 * The queue store's hook (thread-queue-store.ts): each change goes to the mirror, and the rows
 * it wrote are marked once it commits. None when the host does not mirror.
 */
export function mirroredQueueChanges(
  mirror: CodexStateMirror | null,
  marks: QueueMirrorMarks,
): ((threadId: ThreadId, before: readonly QueuedSubmission[], after: readonly QueuedSubmission[]) => void) | undefined {
  if (mirror === null) return undefined;
  return (threadId, before, after) =>
    mirror.queueChanged(threadId, before, after, (rows) => marks.record(threadId, after.map((submission) => submission.id), rows ?? []));
}
