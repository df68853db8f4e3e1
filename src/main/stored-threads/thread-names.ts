// Thread names, kept where codex 0.171.0 keeps them for a home without its state database:
// $CODEX_HOME/session_index.jsonl, one line appended per rename,
//   {"id":"<thread id>","thread_name":"<name>","updated_at":"<RFC 3339, nanoseconds>"}
// the last line of an id naming it. The file is read once at start; after that names are
// answered from memory, and a rename is an append (a line this short is written in one
// write(2) with O_APPEND, so it never interleaves with another process's appends).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogFn } from '../../common/log.js';
import { internalError } from '../../common/errors.js';
import { fsPromises } from '../lazy-builtin.js';

const FILE = 'session_index.jsonl';
// An append to a local file takes far less; past this the rename is reported as failed.
const APPEND_DEADLINE_MS = 10_000;

export class ThreadNames {
  readonly #names = new Map<string, string>();
  readonly #path: string;

  constructor(home: string, log: LogFn) {
    this.#path = join(home, FILE);
    let text = '';
    try {
      text = readFileSync(this.#path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log('warn', 'cannot read thread names', { path: this.#path, error: String(error) });
    }
    for (const line of text.split('\n')) this.#learn(line);
  }

  /** The thread's name, or null when it has none. */
  get(threadId: string): string | null {
    return this.#names.get(threadId.toLowerCase()) ?? null;
  }

  /** Appends the rename to the index, then remembers it; rejects when the append fails. */
  async set(threadId: string, name: string, nowMs: number): Promise<void> {
    const line = JSON.stringify({ id: threadId, thread_name: name, updated_at: rfc3339Nanos(nowMs) });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(internalError(`writing ${this.#path} took longer than ${APPEND_DEADLINE_MS} ms`)), APPEND_DEADLINE_MS);
    });
    try {
      await Promise.race([fsPromises().appendFile(this.#path, `${line}\n`, { flag: 'a' }), deadline]);
    } catch (error) {
      throw error instanceof Error && error.name === 'RpcError' ? error : internalError(`failed to write ${this.#path}: ${String(error)}`);
    } finally {
      clearTimeout(timer);
    }
    this.#names.set(threadId.toLowerCase(), name);
  }

  // Lines that are not a rename (blank, torn by a crash, another shape) are skipped.
  #learn(line: string): void {
    if (line.trim() === '') return;
    try {
      const entry = JSON.parse(line) as { id?: unknown; thread_name?: unknown };
      if (typeof entry.id === 'string' && typeof entry.thread_name === 'string') this.#names.set(entry.id.toLowerCase(), entry.thread_name);
    } catch {
      // skipped
    }
  }
}

/** `2026-12-05T00:03:28.553000000Z`: the reference writes nanoseconds; a millisecond clock pads them. */
function rfc3339Nanos(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}
