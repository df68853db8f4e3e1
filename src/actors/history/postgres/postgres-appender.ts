// The one writer of a thread's history in the PostgreSQL thread store. Like the file appender
// (../files/rollout-appender.ts) it takes batches of whole JSONL records in call order
// and lands each whole or not at all; unlike a file, the store itself refuses a writer that
// lost the thread: every batch is one statement conditional on this host's epoch and on the
// next line it expects (src/common/postgres/fenced-append.ts). Zero rows means another host
// took the thread over: the appender is revoked at once and the host is told (`onFenced`), so
// the thread goes through the lock-loss path. A paused or partitioned host that wakes up late
// writes nothing, whatever its own clock or lease says.
//
// Batches handed over while a statement is in flight go together in the next one (group
// commit, commit-groups.ts): one WAL flush for a turn's closing lines instead of one per batch.
// A turn's batches linger until it settles, so a quick turn is one statement.
//
// A batch whose outcome is unknown (the connection dropped or the deadline passed around the
// commit) is cut back before anything else is written, as a torn file write is: the lines at
// and after the batch's first line are deleted, under the same epoch condition, so the stored
// history holds exactly the batches the actor saw land.
import type { ActorHistory } from '../../../common/actor-messages.js';
import type { WriteFence } from '../../../common/write-fence.js';
import type { AppendOutcome } from '../../../common/postgres/fenced-append.js';
import type { AppendOptions, HistoryAppender, OrdinalStamp } from '../history-appender.js';
import type { TurnEndReceipt } from '../../../common/turn-end-revision.js';
import { CommitGroups } from './commit-groups.js';
import { appendToStore, cutBackInStore } from './worker-postgres.js';

type PostgresHistory = Extract<ActorHistory, { store: 'postgres' }>;

export interface PostgresAppenderOptions {
  ordinals: OrdinalStamp | null;
  /** Once fenced, the host has released the thread: nothing may be written. */
  fence: WriteFence | null;
  /** The store refused a batch: another host owns the thread now. */
  onFenced: (message: string) => void;
  /** How long one batch (or a cut-back) may take, a wait for a connection included; past it, its outcome is unknown. */
  deadlineMs?: number;
}

type AppenderState =
  | { kind: 'ready' }
  // `uncertain`: the batch starting at line `from` may or may not have been committed.
  | { kind: 'failed'; error: Error; uncertainFrom: number | null }
  | { kind: 'cutBackDue'; from: number }
  | { kind: 'revoked'; error: Error }
  | { kind: 'closed' };

// Past this a batch's fate is unknown and the turn fails; a slower store is a failing one.
const DEFAULT_DEADLINE_MS = 5_000;

export class PostgresAppender implements HistoryAppender {
  readonly #threadId: string;
  readonly #history: PostgresHistory;
  readonly #options: PostgresAppenderOptions;
  readonly #ordinals: OrdinalStamp | null;
  readonly #deadlineMs: number;
  /** The store line the next batch starts at. */
  #nextLine: number;
  readonly #groups = new CommitGroups<TurnEndReceipt>((lines, receipt) => this.#write(lines, receipt));
  #state: AppenderState = { kind: 'ready' };
  #closing: Promise<void> | null = null;

  constructor(threadId: string, history: PostgresHistory, options: PostgresAppenderOptions) {
    this.#threadId = threadId;
    this.#history = history;
    this.#options = options;
    this.#nextLine = history.nextLine;
    this.#ordinals = options.ordinals ? { ...options.ordinals } : null;
    this.#deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  peekOrdinal(): number | null {
    return this.#ordinals === null ? null : this.#ordinals.next + this.#groups.queuedLines;
  }

  get failed(): boolean {
    return this.#state.kind === 'failed';
  }

  append(lines: string[], options: AppendOptions = {}): Promise<void> {
    if (this.#closing !== null) return Promise.reject(new Error(`the history of thread ${this.#threadId} is closed; cannot append`));
    return this.#groups.push(lines, options.lingering ?? false, options.readReceipt ?? null);
  }

  flush(): void {
    this.#groups.flush();
  }

  reset(): 'ready' | 'unrecoverable' {
    const state = this.#state;
    if (state.kind === 'closed' || state.kind === 'revoked') return 'unrecoverable';
    if (state.kind === 'failed') this.#state = state.uncertainFrom === null ? { kind: 'ready' } : { kind: 'cutBackDue', from: state.uncertainFrom };
    return 'ready';
  }

  revoke(reason: string): void {
    if (this.#state.kind === 'revoked' || this.#state.kind === 'closed') return;
    this.#state = { kind: 'revoked', error: new Error(reason) };
  }

  close(): Promise<void> {
    this.#closing ??= this.#groups.idle().then(() => {
      if (this.#state.kind !== 'revoked') this.#state = { kind: 'closed' };
    });
    return this.#closing;
  }

  async #write(lines: string[], readReceipt: TurnEndReceipt | null): Promise<void> {
    if (lines.length === 0) return;
    this.#refuseUnlessWritable();
    if (this.#state.kind === 'cutBackDue') await this.#cutBack(this.#state.from);
    const ordinals = this.#ordinals;
    const stamped = ordinals === null ? lines : lines.map((line, i) => ordinals.stamp(line, ordinals.next + i));
    const from = this.#nextLine;
    const { epoch, connection } = this.#history;
    let outcome: AppendOutcome;
    try {
      outcome = await appendToStore(connection, { threadId: this.#threadId, epoch, expectedNext: from, lines: stamped, readReceipt }, this.#deadlineMs);
    } catch (cause) {
      throw this.#fail(cause, from);
    }
    if (outcome.kind === 'fenced') throw this.#fenced(outcome.epochNow);
    this.#nextLine = outcome.nextOrdinal;
    if (ordinals !== null) ordinals.next += lines.length;
  }

  async #cutBack(from: number): Promise<void> {
    let outcome: 'cutBack' | 'fenced';
    try {
      outcome = await cutBackInStore(this.#history.connection, { threadId: this.#threadId, epoch: this.#history.epoch, from }, this.#deadlineMs);
    } catch (cause) {
      throw this.#fail(cause, from);
    }
    if (outcome === 'fenced') throw this.#fenced(null);
    this.#nextLine = from;
    this.#state = { kind: 'ready' };
  }

  #refuseUnlessWritable(): void {
    const state = this.#state;
    if (this.#options.fence?.fenced) throw new Error('the writer lock was released; the history is closed to writes');
    if (state.kind === 'revoked') throw state.error;
    if (state.kind === 'closed') throw new Error(`the history of thread ${this.#threadId} is closed; cannot append`);
    if (state.kind === 'failed') throw new Error(`the history of thread ${this.#threadId} is unwritable after an earlier failure: ${state.error.message}`, { cause: state.error });
  }

  #fail(cause: unknown, uncertainFrom: number): Error {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const error = new Error(`failed to append to thread ${this.#threadId} in the PostgreSQL thread store: ${reason}`, { cause });
    if (this.#state.kind !== 'revoked') this.#state = { kind: 'failed', error, uncertainFrom };
    return error;
  }

  #fenced(epochNow: number | null): Error {
    const now = epochNow === null ? '' : ` (its epoch is now ${epochNow}, ours was ${this.#history.epoch})`;
    const message = `another host took thread ${this.#threadId} over in the PostgreSQL thread store${now}; nothing more is written here`;
    this.revoke(message);
    this.#options.onFenced(message);
    return new Error(message);
  }
}
