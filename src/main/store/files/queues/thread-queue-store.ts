// The input queued for threads (thread/queue/*), kept by thread-host in its own home: one JSON
// file per thread, `<home>/thread-queues/<thread id>.json`, replaced whole and atomically (a
// temporary file, then a rename) on every change, so a queue survives an unload and a restart.
// The reference keeps its queue in its own database (queue_1.sqlite), which thread-host
// mirrors each change into when it may (codex-state-mirror.ts) and reads only to learn which
// of those rows the reference ran (codex-queue-reconcile.ts). Requests are
// answered from memory once the change is on disk; a thread's file is read once, the first
// time its queue is asked for, and its writes are chained so they land in order. fs/promises runs them on libuv's pool, off the main thread.
import { join } from 'node:path';
import { internalError } from '../../../../common/errors.js';
import { KeyedMailbox } from '../../../../common/keyed-mailbox.js';
import { withFsDeadline } from '../fs-deadline.js';
import { fsPromises } from '../../../lazy-builtin.js';
import type { QueuedSubmission } from '../../../../common/codex-db/codex-state-changes.js';
import type { ThreadId } from '../../../../common/thread-id.js';

export type { QueuedSubmission };

/** The directory of the queue files in a home; `<thread id>.json` in it. */
export const QUEUES_DIR = 'thread-queues';

export class ThreadQueueStore {
  readonly #dir: string;
  readonly #queues = new Map<string, QueuedSubmission[]>();
  readonly #reads = new Map<string, Promise<QueuedSubmission[]>>();
  /** Each thread's writes and removal, one after another. */
  readonly #writes = new KeyedMailbox<string>();
  #writeCount = 0;

  /** `onChanged` hears each change once it is on disk (codex-state-mirror.ts). */
  constructor(
    home: string,
    private readonly onChanged: (threadId: ThreadId, before: readonly QueuedSubmission[], after: readonly QueuedSubmission[]) => void = () => undefined,
  ) {
    this.#dir = join(home, QUEUES_DIR);
  }

  /** The thread's queue, from memory once read (a copy: change it through `replace`). */
  async get(threadId: ThreadId): Promise<QueuedSubmission[]> {
    const key = threadId;
    const known = this.#queues.get(key);
    if (known !== undefined) return [...known];
    let reading = this.#reads.get(key);
    if (reading === undefined) {
      reading = this.#read(key);
      this.#reads.set(key, reading);
    }
    const queue = await reading;
    if (!this.#queues.has(key)) this.#queues.set(key, queue);
    this.#reads.delete(key);
    return [...this.#queues.get(key)!];
  }

  /** The queue if it is in memory: what the main thread can tell without the disk. */
  peek(threadId: ThreadId): readonly QueuedSubmission[] | undefined {
    return this.#queues.get(threadId);
  }

  /** Makes `queue` the thread's queue, in memory at once and on disk when this resolves. */
  replace(threadId: ThreadId, queue: QueuedSubmission[]): Promise<void> {
    const key = threadId;
    const before = this.#queues.get(key) ?? [];
    this.#queues.set(key, queue);
    const text = JSON.stringify({ threadId, queue });
    const write = this.#writes.post(key, () => this.#write(key, text)).then(() => this.onChanged(threadId, before, queue));
    return withFsDeadline(write, `writing the queue of thread ${threadId}`);
  }

  /** Forgets the thread's queue (thread/delete): its file is removed after any write in flight. */
  remove(threadId: ThreadId): Promise<void> {
    const key = threadId;
    this.#queues.delete(key);
    const removal = this.#writes.post(key, () => fsPromises().rm(this.#file(key), { force: true }));
    return withFsDeadline(removal, `removing the queue of thread ${threadId}`);
  }

  async #read(key: string): Promise<QueuedSubmission[]> {
    try {
      return queueIn(await fsPromises().readFile(this.#file(key), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw internalError(`failed to read the queue of thread ${key}: ${String(error)}`);
    }
  }

  async #write(key: string, text: string): Promise<void> {
    // Loaded on first use: a start that never touches a queue never loads it (start-path test).
    const fs = fsPromises();
    await fs.mkdir(this.#dir, { recursive: true });
    const temporary = `${this.#file(key)}.${process.pid}.${++this.#writeCount}.tmp`;
    await fs.writeFile(temporary, text);
    await fs.rename(temporary, this.#file(key));
  }

  #file(key: string): string {
    return join(this.#dir, `${key}.json`);
  }
}

/** The queue a thread's file holds (`fleet import` reads a home's queues with it too); throws on text that is no JSON. */
export function queueIn(text: string): QueuedSubmission[] {
  const parsed = JSON.parse(text) as { queue?: unknown };
  return Array.isArray(parsed.queue) ? (parsed.queue as QueuedSubmission[]) : [];
}
