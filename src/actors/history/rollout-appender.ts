// The one writer of a rollout file. Appends are queued on a promise chain, so they reach the
// file in call order even when callers do not await each other, and each append is a single
// write(2) of whole lines on an O_APPEND fd: a crash can tear at most the last line, never
// interleave two.
//
//   append(a) ─┐   tail ──► write(a) ──► write(b) ──► write(c)
//   append(b) ─┤            (first one opens the file; a failure poisons the rest)
//   append(c) ─┘
//
// Durability: like the reference (spec writer-locks-unload-history.md §5.3) we never fsync the
// rollout. A resolved append means the bytes are in the kernel's page cache, which survives a
// crash of this process but not a power loss; an fsync per line would put a disk flush on
// every turn's critical path for a guarantee the reference does not give either.

import type { FileHandle } from 'node:fs/promises';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

const NEWLINE = 0x0a;

type AppenderState =
  | { kind: 'unopened' }
  // `tornTail`: the file left by a crashed writer ends mid-line and we have not written yet.
  | { kind: 'open'; handle: FileHandle; tornTail: boolean }
  | { kind: 'failed'; error: Error; handle: FileHandle | null }
  | { kind: 'closed' };

/** Appends JSONL lines to one rollout file, in order, creating it on first use. */
export class RolloutAppender {
  readonly path: string;
  #state: AppenderState = { kind: 'unopened' };
  // Settles when every append queued so far has settled; never rejects.
  #tail: Promise<void> = Promise.resolve();
  #closing: Promise<void> | null = null;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * Appends `lines` (each without its '\n') as one write. Rejects if this write fails, if an
   * earlier one failed (the file may now be missing lines, so nothing later may land after
   * the gap), or if the appender is closed.
   */
  append(lines: string[]): Promise<void> {
    if (this.#closing !== null) {
      return Promise.reject(new Error(`rollout ${this.path} is closed; cannot append`));
    }
    const run = this.#tail.then(() => this.#write(lines));
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Waits for queued appends, then closes the file. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#tail.then(() => this.#release());
    return this.#closing;
  }

  async #write(lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    const { handle, tornTail } = await this.#ensureOpen();
    // After a crash mid-line, start ours on a fresh line, in the same write.
    const data = Buffer.from(`${tornTail ? '\n' : ''}${lines.join('\n')}\n`, 'utf8');
    try {
      let offset = 0;
      // One write(2) in practice; loop only if the kernel reports a short write.
      while (offset < data.length) {
        const { bytesWritten } = await handle.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
      if (tornTail) this.#state = { kind: 'open', handle, tornTail: false };
    } catch (cause) {
      throw this.#fail('write to', cause, handle);
    }
  }

  async #ensureOpen(): Promise<{ handle: FileHandle; tornTail: boolean }> {
    const state = this.#state;
    if (state.kind === 'open') return state;
    if (state.kind === 'failed') {
      throw new Error(`rollout ${this.path} is unwritable after an earlier failure: ${state.error.message}`, {
        cause: state.error,
      });
    }
    if (state.kind === 'closed') throw new Error(`rollout ${this.path} is closed; cannot append`);
    let handle: FileHandle | null = null;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      // 'a+' is O_RDWR|O_CREAT|O_APPEND, the reference's flags: appends always land at the
      // end, and the fd can also read the last byte of a file left by a crashed writer.
      handle = await open(this.path, 'a+');
      this.#state = { kind: 'open', handle, tornTail: await endsTorn(handle) };
      return this.#state;
    } catch (cause) {
      throw this.#fail('open', cause, handle);
    }
  }

  #fail(action: string, cause: unknown, handle: FileHandle | null): Error {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new Error(`failed to ${action} rollout ${this.path}: ${reason}`, { cause });
    this.#state = { kind: 'failed', error, handle };
    return error;
  }

  async #release(): Promise<void> {
    const state = this.#state;
    this.#state = { kind: 'closed' };
    const handle = state.kind === 'open' || state.kind === 'failed' ? state.handle : null;
    await handle?.close();
  }
}

// True when a non-empty file does not end in '\n', i.e. its last line was cut short.
async function endsTorn(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== NEWLINE;
}
