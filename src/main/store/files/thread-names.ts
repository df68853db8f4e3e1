// Thread names, kept where codex 0.171.0 keeps them for a home without its state database:
// $CODEX_HOME/session_index.jsonl, one line appended per rename,
//   {"id":"<thread id>","thread_name":"<name>","updated_at":"<RFC 3339, nanoseconds>"}
// the last line of an id naming it. The file is read once at start; after that names are
// answered from memory, and a rename is an append (a line this short is written in one
// write(2) with O_APPEND, so it never interleaves with another process's appends).
import { join } from 'node:path';
import type { LogFn } from '../../../common/log.js';
import { fsPromises } from '../../lazy-builtin.js';
import { withFsDeadline } from './fs-deadline.js';
import { appendLine, readLinesAtStart } from './home-lines.js';
import { threadIdOf, type ThreadId } from '../../../common/thread-id.js';

const FILE = 'session_index.jsonl';

export class ThreadNames {
  readonly #names = new Map<string, string>();
  readonly #path: string;

  /** `onNamed` hears each rename once it is in the index (codex-state-mirror.ts). */
  constructor(home: string, log: LogFn, private readonly onNamed: (threadId: ThreadId, name: string) => void = () => undefined) {
    this.#path = join(home, FILE);
    for (const line of readLinesAtStart(this.#path, log, 'thread names')) this.#learn(line);
  }

  /** The thread's name, or null when it has none. */
  get(threadId: ThreadId): string | null {
    return this.#names.get(threadId) ?? null;
  }

  /** Appends the rename to the index, then remembers it; rejects when the append fails. */
  async set(threadId: ThreadId, name: string, nowMs: number): Promise<void> {
    await appendLine(this.#path, { id: threadId, thread_name: name, updated_at: rfc3339Nanos(nowMs) });
    this.#names.set(threadId, name);
    this.onNamed(threadId, name);
  }

  /**
   * Forgets the thread's name, as the reference does when it deletes a thread: the index is
   * written again without the thread's lines (to a temporary file renamed over it, so a reader
   * never sees half of it). Lines of other threads, and lines this host cannot parse, stay.
   */
  async forget(threadId: ThreadId): Promise<void> {
    const id = threadId;
    let text: string;
    try {
      text = await withFsDeadline(fsPromises().readFile(this.#path, 'utf8'), `reading ${this.#path}`);
    } catch (error) {
      if (this.#names.has(id)) throw error;
      return; // no index, and no name here: nothing to forget
    }
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const kept = lines.filter((line) => idOf(line) !== id);
    if (kept.length !== lines.length) {
      const temporary = `${this.#path}.${process.pid}.tmp`;
      await withFsDeadline(fsPromises().writeFile(temporary, kept.map((line) => `${line}\n`).join('')), `writing ${temporary}`);
      await withFsDeadline(fsPromises().rename(temporary, this.#path), `replacing ${this.#path}`);
    }
    this.#names.delete(id);
  }

  // Lines that are not a rename (blank, torn by a crash, another shape) are skipped.
  #learn(line: string): void {
    if (line.trim() === '') return;
    try {
      const entry = JSON.parse(line) as { id?: unknown; thread_name?: unknown };
      if (typeof entry.id === 'string' && typeof entry.thread_name === 'string') this.#names.set(threadIdOf(entry.id), entry.thread_name);
    } catch {
      // skipped
    }
  }
}

/** The lower-case thread id a line of the index names, or null for a line that names none. */
function idOf(line: string): string | null {
  try {
    const entry = JSON.parse(line) as { id?: unknown };
    return typeof entry.id === 'string' ? threadIdOf(entry.id) : null;
  } catch {
    return null;
  }
}

/** `2026-12-05T00:03:28.553000000Z`: the reference writes nanoseconds; a millisecond clock pads them. */
function rfc3339Nanos(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}
