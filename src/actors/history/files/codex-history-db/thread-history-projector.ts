// Keeps the reference's paginated history database current for one thread this actor writes:
// the batches that land in the rollout are projected into the database as the reference would
// project them (projected-line.ts, projection-sql.ts), in short transactions, while this host
// still holds the thread's writer lock (the actor reports a turn's end as soon as its lines
// are in the rollout, then waits for `flush()` before it goes quiet, which is what lets the
// host release the lock).
//
//   batch lands ──► bytes kept ──► checkpoint read ──► tail cut and checked ──► BEGIN IMMEDIATE
//                  (from memory; the file is read only when the checkpoint is behind them;
//                   the checkpoint is read only when this projector has not committed one,
//                   since the transaction checks it again under the write lock anyway)
//
// A turn is followed by one transaction, after its end is reported. The batches that land
// before it are projected by the flush at the turn's end or, in a turn that lasts, a little
// after they land (IN_TURN_DELAY_MS), so the reference's reads show a long turn in progress
// without any turn waiting for those transactions: on a quick turn they never run apart from
// the last one.
//
// It never holds anything up for long: the database's write lock is never waited for by
// blocking; a write that finds it taken is tried again asynchronously until the database's
// deadline, counted from the flush when one waits for it, so the actor stays active (and the
// lock held) for at most one deadline after a turn, and the worker's other actors run meanwhile. A projection that loses that wait
// leaves the database as it was (the reference catches up from the rollout at its next resume)
// and stops trying until the next turn. Runs one at a time, coalesced: batches that land while
// one runs are projected together by the next; a batch that makes no row (session_meta,
// token_count) waits for the next one or for `flush()`.
import { open } from 'node:fs/promises';
import type { LogFn } from '../../../../common/log.js';
import { retryWhileBusy } from '../../../../common/codex-db/busy-retry.js';
import { Mailbox } from '../../../../common/mailbox.js';
import type { HistoryDatabase } from './history-database.js';
import { projectTail, type Checkpoint } from './rollout-tail.js';

// A catch-up that must read the rollout (a thread the reference never projected, or one whose
// projection fell behind) reads at most this much: a long history the reference wrote itself
// would be refused at its first record anyway, and the reference catches it up at its resume.
const MAX_CATCH_UP_BYTES = 16 * 1024 * 1024;

/**
 * How long landed lines may wait for their projection before a flush: the staleness of an
 * in-progress turn in the reference's reads, and the time a turn must last before any of its
 * lines are projected apart from its end. Longer than a turn on a busy worker takes on the
 * mock model (bench turn-sequential and turn-concurrent: one transaction per turn); short
 * next to a turn on a real model.
 */
export const IN_TURN_DELAY_MS = 1_000;


/**
 * Bytes that landed in the rollout at `offset`, kept until they are projected: the appender's
 * own buffers (it never reuses one), joined only when a projection reads them.
 */
interface Unprojected {
  offset: number;
  length: number;
  chunks: Buffer[];
}

function joined(kept: Unprojected): Buffer {
  if (kept.chunks.length > 1) kept.chunks = [Buffer.concat(kept.chunks, kept.length)];
  return kept.chunks[0]!;
}

export interface ThreadHistoryProjectorOptions {
  threadId: string;
  rolloutPath: string;
  database: HistoryDatabase;
  /** False once the writer lock is gone (fenced, revoked): nothing more is written. */
  holdsWriterLock: () => boolean;
  log: LogFn;
}

export class ThreadHistoryProjector {
  readonly #options: ThreadHistoryProjectorOptions;
  #unprojected: Unprojected | null = null;
  /** The end of the file as this host last wrote it. */
  #landedEnd = 0;
  #queued = false;
  /** Projects what landed after IN_TURN_DELAY_MS, unless a flush does first. */
  #delayed: NodeJS.Timeout | null = null;
  /** The queued projection must take everything (a flush), even lines that make no row. */
  #complete = false;
  /** When the wait for the write lock must end for the flush being waited for; null: no flush. */
  #flushDeadline: number | null = null;
  /** Projections, one at a time. */
  readonly #projections = new Mailbox();
  /** A wait for the database's lock ran out this turn: no more tries until the next one. */
  #deferred = false;
  /** This thread's tail cannot be projected exactly (or the lock is gone): never again. */
  #done = false;
  /** The checkpoint this projector committed last: where the next projection starts, unless another connection moved it. */
  #committed: Checkpoint | null = null;

  constructor(options: ThreadHistoryProjectorOptions) {
    this.#options = options;
  }

  /** The appender's hook: `bytes` reached the rollout at `offset`. */
  landed(offset: number, bytes: Buffer): void {
    if (this.#done) return;
    this.#landedEnd = offset + bytes.length;
    // A database that is not there (a home codex never ran in) or not to be written keeps no
    // bytes and leaves nothing pending, so the actor goes quiet as the turn ends (an unload right
    // after it is fenced). One that appears later catches up from the file.
    const refusal = this.#options.database.refusal();
    if (refusal !== null) return this.#skip('database', refusal);
    const kept = this.#unprojected;
    if (kept !== null && kept.offset + kept.length === offset) {
      kept.chunks.push(bytes);
      kept.length += bytes.length;
    } else {
      this.#unprojected = { offset, length: bytes.length, chunks: [bytes] };
    }
    if (this.#delayed === null && !this.#queued) {
      this.#delayed = setTimeout(() => {
        this.#delayed = null;
        this.#queue();
      }, IN_TURN_DELAY_MS).unref();
    }
  }

  /** Landed lines wait for their projection (or one is running). */
  get pending(): boolean {
    return !this.#done && (this.#unprojected !== null || this.#queued);
  }

  /** Settles once every landed batch has been projected or given up on. */
  flush(): Promise<void> {
    this.#cancelDelayed();
    if (this.#unprojected !== null && !this.#done) {
      this.#flushDeadline ??= performance.now() + this.#options.database.deadlineMs;
      this.#queue(true);
    }
    return this.#projections.settled();
  }

  #cancelDelayed(): void {
    if (this.#delayed !== null) clearTimeout(this.#delayed);
    this.#delayed = null;
  }

  #queue(complete = false): void {
    this.#complete ||= complete;
    if (this.#queued) return;
    this.#queued = true;
    void this.#projections.post(() => this.#project().catch((error: unknown) => this.#stop(`it failed: ${(error as Error).message}`)));
  }

  /** A new turn: try again after a lost wait for the database's lock. */
  nextTurn(): void {
    this.#deferred = false;
  }

  /** The writer lock is gone: nothing more is projected. */
  stop(): void {
    this.#done = true;
    this.#unprojected = null;
    this.#cancelDelayed();
  }

  async #project(): Promise<void> {
    this.#queued = false;
    const complete = this.#complete;
    this.#complete = false;
    // This projection is the flush's (or one it waits for): both end by its deadline.
    const ownDeadline = performance.now() + this.#options.database.deadlineMs;
    try {
      const outcome = await retryWhileBusy(() => this.#tryProject(complete), (tried) => tried === 'busy', () => Math.min(ownDeadline, this.#flushDeadline ?? Infinity));
      if (outcome === 'busy') {
        this.#deferred = true;
        this.#skip('busy', 'another connection held its write lock past the deadline; the reference catches up at its next resume');
      }
    } finally {
      if (complete) this.#flushDeadline = null;
    }
  }

  // One try: 'busy' when another connection holds the database's write lock (nothing changed).
  async #tryProject(complete: boolean): Promise<'busy' | void> {
    const { database, threadId } = this.#options;
    if (this.#done || this.#deferred || !this.#options.holdsWriterLock()) return this.#forget();
    const known = this.#committed;
    const read = known === null ? database.checkpoint(threadId) : { kind: 'checkpoint' as const, at: known };
    if (read.kind === 'busy') return 'busy';
    if (read.kind === 'unusable') return this.#skip('database', read.reason);
    const from: Checkpoint = read.at ?? { offset: 0, ordinal: 0 };
    const end = this.#landedEnd;
    if (from.offset === end) return this.#forget();
    if (from.offset > end) return this.#stop(`its checkpoint (byte ${from.offset}) is past the end of the rollout (byte ${end})`);
    const kept = this.#unprojected;
    if ((kept === null || kept.offset > from.offset) && end - from.offset > MAX_CATCH_UP_BYTES) {
      return this.#stop(`the rollout from its checkpoint (byte ${from.offset}) on is longer than this host reads back to catch up`);
    }
    const bytes = await this.#bytesBetween(from.offset, end);
    const tail = projectTail(bytes, from);
    if (tail.kind === 'refused') return this.#stop(`the rollout from byte ${from.offset} holds ${tail.reason}`);
    // Lines that only move the checkpoint (session_meta, token_count) change no read: they
    // wait for the next lines that do, or for the flush before the lock can be released,
    // which saves a transaction each.
    if (!complete && tail.lines.every((line) => line.turns.length === 0 && line.items.length === 0)) return;
    // Checked again after the read: the lock may have gone while it ran.
    if (!this.#options.holdsWriterLock()) return this.#forget();
    const outcome = database.apply(threadId, from, tail.lines, tail.next);
    switch (outcome.kind) {
      case 'applied':
        this.#committed = tail.next;
        return this.#dropThrough(tail.next.offset);
      case 'busy':
        return 'busy';
      case 'moved':
        // Moved since this projector's last commit (rows deleted for the reference to rebuild
        // them, say): start again from the one the database holds, as a first projection would.
        this.#committed = null;
        if (known !== null) return this.#tryProject(complete);
        return this.#stop(`its checkpoint moved while this host held the writer lock (now ${JSON.stringify(outcome.found)})`);
      case 'unusable':
        return this.#skip('database', outcome.reason);
    }
  }

  // The landed bytes from `start` on: from memory when they are all there, else from the file
  // (a thread's first projection, or one after a skipped one).
  async #bytesBetween(start: number, end: number): Promise<Buffer> {
    const kept = this.#unprojected;
    if (kept !== null && kept.offset <= start) return joined(kept).subarray(start - kept.offset, end - kept.offset);
    const file = await open(this.#options.rolloutPath, 'r');
    try {
      const bytes = Buffer.alloc(end - start);
      for (let read = 0; read < bytes.length; ) {
        const { bytesRead } = await file.read(bytes, read, bytes.length - read, start + read);
        if (bytesRead === 0) throw new Error(`the rollout ends before byte ${end}`);
        read += bytesRead;
      }
      return bytes;
    } finally {
      await file.close();
    }
  }

  #dropThrough(offset: number): void {
    const kept = this.#unprojected;
    if (kept === null) return;
    const end = kept.offset + kept.length;
    this.#unprojected = offset >= end ? null : { offset, length: end - offset, chunks: [joined(kept).subarray(offset - kept.offset)] };
  }

  // What is not projected now is read back from the file next time.
  #forget(): void {
    this.#unprojected = null;
  }

  #skip(category: string, reason: string): void {
    this.#forget();
    this.#note(category, reason);
  }

  #stop(reason: string): void {
    this.#done = true;
    this.#forget();
    this.#note('thread', reason);
  }

  #note(category: string, reason: string): void {
    const { database, threadId, log } = this.#options;
    if (!database.firstNotice(category)) return;
    log('info', 'not projecting into the reference history database', { database: database.path, threadId, reason });
  }
}
