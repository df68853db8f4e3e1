// The one writer of a rollout file. Appends are queued on a promise chain, so they reach the
// file in call order even when callers do not await each other, and each append is a single
// write(2) of whole lines on an O_APPEND fd: a crash can tear at most the last line, never
// interleave two.
//
//   append(a) ─┐   tail ──► write(a) ──► write(b) ──► write(c)
//   append(b) ─┤            (first one opens the file; a failure poisons the rest)
//   append(c) ─┘
//
// Durability: like the reference (spec writer-locks-unload-history.md §5.3) a flock home's
// rollout is never fsynced. A resolved append means the bytes are in the kernel's page cache,
// which survives a crash of this process but not a power loss; an fsync per line would put a
// disk flush on every turn's critical path for a guarantee the reference does not give either.
// With `syncEachBatch` (lockfile homes, where another host can take the thread over while this
// one still lives) each batch is fdatasynced before its append resolves: a network client's
// page cache may hold dirty pages, written back at close at offsets computed before a
// takeover, so only data already at the server may be acknowledged or left behind at release.
//
// Disk faults:
// - A write that fails part-way (ENOSPC after a short write) is cut back to the last whole
//   line, so the file never holds a fragment in its middle. The appender then refuses further
//   appends (nothing may land after a gap) until its owner calls `reset()` at a point where a
//   gap is harmless: the actor does so between turns.
// - A rollout deleted while loaded: writes to an O_APPEND fd would silently go to the orphaned
//   inode and vanish at close. Before each write and at close we fstat the fd; at nlink 0 the
//   file is recreated, exclusively, from the orphan's own bytes (everything acknowledged is in
//   them) and writing continues there. The reference has no such check; recreating is what
//   loses nothing, and `onNotice` tells the owner it happened.

import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { WriteFence } from '../../../common/write-fence.js';
import { leaseExpiry, type WriterLease } from '../../../common/writer-lease.js';
import type { HistoryAppender, OrdinalStamp } from '../history-appender.js';
import { AppendQueue } from './append-queue.js';

const NEWLINE = 0x0a;

/** Test hook standing in for the disk: how many of `length` bytes a write gets through. */
export interface AppendFaults {
  bytesAccepted(length: number): number;
}

/** Construction options. */
export interface RolloutAppenderOptions {
  faults?: AppendFaults | null;
  ordinals?: OrdinalStamp | null;
  /** Something the owner should know and log, though no append failed. */
  onNotice?: (message: string) => void;
  /** Once fenced, the host has released the writer lock: nothing may be written. */
  fence?: WriteFence | null;
  /** The writer lock's lease: past its expiry nothing more is written (see writer-lease.ts). */
  lease?: WriterLease | null;
  /** fdatasync each batch before its append resolves (see Durability above). */
  syncEachBatch?: boolean;
  /** Told of each write that landed whole: its bytes (the write's own buffer, never reused) and the file offset they start at. */
  onLanded?: ((offset: number, bytes: Buffer) => void) | null;
}

type AppenderState =
  | { kind: 'unopened' }
  // `tornTail`: the file left by a crashed writer ends mid-line and we have not written yet.
  // `size`: bytes of the file known to end on a line boundary (or on that torn tail).
  | { kind: 'open'; handle: FileHandle; tornTail: boolean; size: number }
  // `size` null: a partial write could not be cut back, so the file may end mid-line.
  | { kind: 'failed'; error: Error; handle: FileHandle | null; tornTail: boolean; size: number | null }
  // The writer lock was lost: the file may belong to another host now. Terminal; the handle
  // is closed once queued work has seen the state, and nothing is recreated.
  | { kind: 'revoked'; error: Error; handle: FileHandle | null }
  | { kind: 'closed' };

type OpenState = Extract<AppenderState, { kind: 'open' }>;

/** Appends JSONL lines to one rollout file, in order, creating it on first use. */
export class RolloutAppender implements HistoryAppender {
  readonly path: string;
  readonly #faults: AppendFaults | null;
  readonly #onNotice: (message: string) => void;
  readonly #lease: WriterLease | null;
  readonly #ordinals: OrdinalStamp | null;
  readonly #fence: WriteFence | null;
  readonly #syncEachBatch: boolean;
  readonly #onLanded: ((offset: number, bytes: Buffer) => void) | null;
  readonly #queue = new AppendQueue();
  #state: AppenderState = { kind: 'unopened' };
  #closing: Promise<void> | null = null;

  constructor(path: string, options: RolloutAppenderOptions = {}) {
    this.path = path;
    this.#faults = options.faults ?? null;
    this.#onNotice = options.onNotice ?? (() => undefined);
    this.#fence = options.fence ?? null;
    this.#lease = options.lease ?? null;
    this.#syncEachBatch = options.syncEachBatch ?? false;
    this.#onLanded = options.onLanded ?? null;
    // Its own copy: `next` advances as lines land.
    this.#ordinals = options.ordinals ? { ...options.ordinals } : null;
  }

  /**
   * The ordinal a line appended now will get if everything queued before it lands; null for a
   * file without ordinals. Cursors into the history are built from it.
   */
  peekOrdinal(): number | null {
    return this.#ordinals === null ? null : this.#ordinals.next + this.#queue.queuedLines;
  }

  /** True after a failed append, until `reset()`. */
  get failed(): boolean {
    return this.#state.kind === 'failed';
  }

  /**
   * Appends `lines` (each without its '\n') as one write. Rejects if this write fails, if an
   * earlier one failed (the file may now be missing lines, so nothing later may land after
   * the gap), or if the appender is closed.
   */
  /** Writes at once: a write(2) costs less than holding lines back would save. */
  flush(): void {}

  append(lines: string[]): Promise<void> {
    if (this.#closing !== null) {
      return Promise.reject(new Error(`rollout ${this.path} is closed; cannot append`));
    }
    return this.#queue.push(lines.length, () => this.#write(lines));
  }

  /**
   * Lets appends continue after a failure, once the caller has settled what the gap means.
   * 'ready': the file ends on a whole line (or was never opened; the next append retries).
   * 'unrecoverable': a partial write could not be cut back, or the appender is closed.
   * Call it only with no append pending.
   */
  reset(): 'ready' | 'unrecoverable' {
    const state = this.#state;
    if (state.kind === 'closed' || state.kind === 'revoked') return 'unrecoverable';
    if (state.kind !== 'failed') return 'ready';
    if (state.handle === null) {
      this.#state = { kind: 'unopened' };
      return 'ready';
    }
    if (state.size === null) return 'unrecoverable';
    this.#state = { kind: 'open', handle: state.handle, tornTail: state.tornTail, size: state.size };
    return 'ready';
  }

  /**
   * The writer lock is gone: from now on no byte reaches the file, not even appends already
   * queued (a write(2) already issued cannot be recalled). Every later append rejects with
   * `reason`. Synchronous, so it takes effect before the next queued write starts.
   */
  revoke(reason: string): void {
    const state = this.#state;
    if (state.kind === 'revoked' || state.kind === 'closed') return;
    const handle = state.kind === 'open' || state.kind === 'failed' ? state.handle : null;
    this.#state = { kind: 'revoked', error: new Error(reason), handle };
  }

  /** Waits for queued appends, then closes the file. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#queue.afterAll(() => this.#release());
    return this.#closing;
  }

  async #write(lines: string[]): Promise<void> {
    if (lines.length === 0) return;
    const state = await this.#ensureOpen();
    await this.#ensureLinked(state);
    // Checked again after the awaits above: a revoke may have arrived while they ran.
    this.#refuseIfRevoked();
    // Ordinals are taken only here, in write order, and kept only when the write lands.
    const ordinals = this.#ordinals;
    const stamped = ordinals === null ? lines : lines.map((line, i) => ordinals.stamp(line, ordinals.next + i));
    // After a crash mid-line, start ours on a fresh line, in the same write.
    const data = Buffer.from(`${state.tornTail ? '\n' : ''}${stamped.join('\n')}\n`, 'utf8');
    try {
      // One write(2) in practice; loop only if the kernel reports a short write.
      for (let offset = 0; offset < data.length; ) offset += await this.#writeSome(state.handle, data, offset);
      // A failed sync leaves the batch's fate at the server unknown: it fails like a failed
      // write, cut back to the last acknowledged line.
      if (this.#syncEachBatch) await state.handle.datasync();
    } catch (cause) {
      // Never truncate a file that may be another host's now.
      const cutBack = (this.#state as AppenderState).kind !== 'revoked' && (await cutBackTo(state.handle, state.size));
      throw this.#fail('write to', cause, state.handle, state.tornTail, cutBack ? state.size : null);
    }
    state.size += data.length;
    state.tornTail = false;
    if (ordinals !== null) ordinals.next += lines.length;
    this.#onLanded?.(state.size - data.length, data);
  }

  async #writeSome(handle: FileHandle, data: Buffer, offset: number): Promise<number> {
    if (this.#fence?.fenced) throw new Error('the writer lock was released; the rollout is closed to writes');
    const length = data.length - offset;
    const accepted = this.#faults === null ? length : this.#faults.bytesAccepted(length);
    if (accepted < length) {
      if (accepted > 0) await handle.write(data, offset, accepted);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
    }
    const { bytesWritten } = await handle.write(data, offset, length);
    return bytesWritten;
  }

  // Called right before anything touches the file, after every await that precedes it.
  #refuseIfRevoked(): void {
    if (this.#lease !== null && (this.#state as AppenderState).kind !== 'revoked') {
      const expiry = leaseExpiry(this.#lease);
      if (Date.now() >= expiry) {
        this.revoke(
          expiry === 0
            ? `the writer lock of this thread was lost; nothing more is written to ${this.path}`
            : `the writer lock's lease ran out at ${new Date(expiry).toISOString()} (its heartbeat stalled); nothing more is written to ${this.path}`,
        );
      }
    }
    const state = this.#state as AppenderState;
    if (state.kind === 'revoked') throw state.error;
  }

  async #ensureOpen(): Promise<OpenState> {
    this.#refuseIfRevoked();
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
      const { size } = await handle.stat();
      const opened: OpenState = { kind: 'open', handle, tornTail: await endsTorn(handle, size), size };
      // Revoked while opening: the catch below closes the handle, and the revocation stays.
      this.#refuseIfRevoked();
      this.#state = opened;
      return opened;
    } catch (cause) {
      // Nothing was written: close what was opened, so a reset retries from scratch.
      await handle?.close().catch(() => undefined);
      throw this.#fail('open', cause, null, false, 0);
    }
  }

  // Recreates the file from the orphaned inode if someone deleted it under us.
  async #ensureLinked(state: OpenState): Promise<void> {
    this.#refuseIfRevoked();
    const orphan = state.handle;
    let linked: { nlink: number; size: number };
    try {
      linked = await orphan.stat();
    } catch (cause) {
      throw this.#fail('check', cause, orphan, state.tornTail, state.size);
    }
    if (linked.nlink > 0) return;
    const { size } = linked;
    let fresh: FileHandle | null = null;
    try {
      const bytes = Buffer.alloc(size);
      for (let read = 0; read < size; ) {
        const { bytesRead } = await orphan.read(bytes, read, size - read, read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      await mkdir(dirname(this.path), { recursive: true });
      // Exclusive: a file that took the name meanwhile is someone else's; never overwrite it.
      fresh = await open(this.path, 'ax+');
      for (let offset = 0; offset < size; ) offset += await this.#writeSome(fresh, bytes, offset);
      if (this.#syncEachBatch) await fresh.datasync();
    } catch (cause) {
      if (fresh !== null) {
        await fresh.close().catch(() => undefined);
        await unlink(this.path).catch(() => undefined); // half a copy must not pass for the rollout
      }
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw this.#fail('recreate', new Error(`it was deleted while the thread was loaded: ${reason}`, { cause }), orphan, state.tornTail, state.size);
    }
    state.handle = fresh;
    state.size = size;
    await orphan.close().catch(() => undefined);
    this.#onNotice(`rollout ${this.path} was deleted while the thread was loaded; recreated it from the open file (${size} bytes)`);
  }

  #fail(action: string, cause: unknown, handle: FileHandle | null, tornTail: boolean, size: number | null): Error {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new Error(`failed to ${action} rollout ${this.path}: ${reason}`, { cause });
    // A revocation is terminal: a failure seen after it must not make the file writable again.
    if (this.#state.kind !== 'revoked') this.#state = { kind: 'failed', error, handle, tornTail, size };
    return error;
  }

  async #release(): Promise<void> {
    const state = this.#state;
    // Fenced: the host saw the file in place when it released the lock, and may not write now.
    if (state.kind === 'open' && this.#fence?.fenced !== true) {
      // A rollout deleted after our last append would take the thread's history with it.
      await this.#ensureLinked(state).catch((error: Error) => this.#onNotice(error.message));
    }
    this.#state = { kind: 'closed' };
    const handle = state.kind === 'open' || state.kind === 'failed' || state.kind === 'revoked' ? state.handle : null;
    await handle?.close();
  }
}

// Cuts off whatever part of a failed write reached the file, so it still ends where our last
// whole line did. False when that cannot be made sure of.
async function cutBackTo(handle: FileHandle, size: number): Promise<boolean> {
  try {
    if ((await handle.stat()).size > size) await handle.truncate(size);
    return true;
  } catch {
    return false;
  }
}

// True when a non-empty file does not end in '\n', i.e. its last line was cut short.
async function endsTorn(handle: FileHandle, size: number): Promise<boolean> {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== NEWLINE;
}
