// Where a client stopped reading each thread: the `readState` of thread/read and thread/list,
// set by `thread/readState/update` and moved by every turn's end. codex 0.171.0 keeps it only
// in its state database (state_5.sqlite, table thread_read_receipts: first_unread_turn,
// revision, last_published_turn), which thread-host mirrors each change into when it may
// (codex-state-mirror.ts) but never reads, so thread-host keeps its own durable copy:
// $CODEX_HOME/thread-host-read-state.jsonl, one line appended per change holding the thread's
// whole state after it,
//   {"id":"<thread id>","first_unread":{"type":"turn","turn_id":"…"}|{"type":"thread_start"}|null,
//    "revision":"<uuid>","last_published_turn":"<turn id>"|null,"updated_at":"<RFC 3339>"}
// the last line of an id giving it; `"revision":null` forgets a deleted thread. As with
// thread-host-metadata.jsonl (thread-metadata.ts) the file is read once at start and answers
// come from memory. Changes take effect in memory at once (a turn's end must not wait for the
// disk before its notifications); their lines are appended in order, one after another, each
// with a deadline, so the file's last line of a thread is always its latest state.
import { join } from 'node:path';
import type { LogFn } from '../../../common/log.js';
import { Mailbox } from '../../../common/mailbox.js';
import { builtin } from '../../lazy-builtin.js';
import { appendLine, readLinesAtStart } from './home-lines.js';
import { threadIdOf, type ThreadId } from '../../../common/thread-id.js';

export const READ_STATES_FILE = 'thread-host-read-state.jsonl';

/** The first unread position as the wire shows it. */
export type UnreadPosition = { type: 'turn'; turnId: string } | { type: 'threadStart' };

/** `ThreadReadState`: null `firstUnread` means read. */
export interface ThreadReadState {
  firstUnread: UnreadPosition | null;
  revision: string;
}

/** What is kept of a thread: its state, and the last turn whose end moved it. */
export interface Receipt extends ThreadReadState {
  lastPublishedTurn: string | null;
}

export class ThreadReadStates {
  readonly #byId: Map<string, Receipt>;
  readonly #path: string;
  readonly #log: LogFn;
  /** The file's appends, one at a time: concurrent ones could land out of order and leave an older state last. */
  readonly #appends = new Mailbox();

  // node:crypto is loaded at the first revision, not at start (lazy-builtin.ts). `onRecorded`
  // hears each state (null: forgotten) once its line is written (codex-state-mirror.ts).
  constructor(
    home: string,
    log: LogFn,
    readonly newRevision: () => string = () => builtin<typeof import('node:crypto')>('node:crypto').randomUUID(),
    private readonly onRecorded: (threadId: ThreadId, receipt: Receipt | null) => void = () => undefined,
  ) {
    this.#path = join(home, READ_STATES_FILE);
    this.#log = log;
    this.#byId = readStatesIn(readLinesAtStart(this.#path, log, 'thread read states'));
  }

  /**
   * The read state of a materialized thread (one with a rollout): before anything was recorded
   * for it, read, at the reference's `initial:<thread id>` revision. (A thread not yet
   * materialized has none; callers show null.)
   */
  get(threadId: ThreadId): ThreadReadState {
    const { firstUnread, revision } = this.#receipt(threadId);
    return { firstUnread, revision };
  }

  /**
   * A turn ended: it is the first unread one unless an earlier one still is; a new revision
   * either way. Returns the new state at once; the line follows (logged if it cannot be written).
   */
  turnEnded(threadId: ThreadId, turnId: string, nowMs: number): ThreadReadState {
    const id = threadId;
    const before = this.#receipt(id);
    const receipt: Receipt = { firstUnread: before.firstUnread ?? { type: 'turn', turnId }, revision: this.newRevision(), lastPublishedTurn: turnId };
    this.#byId.set(id, receipt);
    this.#queue(id, receipt, nowMs).catch((error: unknown) => this.#log('warn', 'cannot record a thread read state', { threadId: id, error: String(error) }));
    return this.get(id)!;
  }

  /**
   * Marks the thread read or unread if its revision is still `expectedRevision`; a new
   * revision even when nothing else changes (as the reference does). The check and the change
   * are one step in memory, so of two updates expecting one revision only the first wins; a
   * failed append puts the state back. Answers what the thread's state is now, and whether
   * it changed.
   */
  async mark(threadId: ThreadId, operation: 'read' | 'unread', expectedRevision: string, nowMs: number): Promise<{ changed: boolean; state: ThreadReadState }> {
    const id = threadId;
    const before = this.#receipt(id);
    if (before.revision !== expectedRevision) return { changed: false, state: this.get(id)! };
    const receipt: Receipt = { firstUnread: operation === 'read' ? null : { type: 'threadStart' }, revision: this.newRevision(), lastPublishedTurn: before.lastPublishedTurn };
    this.#byId.set(id, receipt);
    try {
      await this.#queue(id, receipt, nowMs);
    } catch (error) {
      if (this.#byId.get(id) === receipt) this.#restore(id, before);
      throw error;
    }
    return { changed: true, state: this.get(id)! };
  }

  /**
   * The thread was reverted to the turns in `kept`: a first unread turn no longer in its
   * history leaves it read, with a new revision, as the reference does (thread-revert.jsonl).
   * Returns the new state, or null when nothing changed.
   */
  reverted(threadId: ThreadId, kept: ReadonlySet<string>, nowMs: number): ThreadReadState | null {
    const id = threadId;
    const before = this.#receipt(id);
    if (before.firstUnread?.type !== 'turn' || kept.has(before.firstUnread.turnId)) return null;
    const receipt: Receipt = { firstUnread: null, revision: this.newRevision(), lastPublishedTurn: before.lastPublishedTurn };
    this.#byId.set(id, receipt);
    this.#queue(id, receipt, nowMs).catch((error: unknown) => this.#log('warn', 'cannot record a thread read state', { threadId: id, error: String(error) }));
    return this.get(id);
  }

  /** Forgets a deleted thread's read state. */
  async forget(threadId: ThreadId, nowMs: number): Promise<void> {
    const id = threadId;
    if (!this.#byId.has(id)) return;
    await this.#queue(id, null, nowMs);
    this.#byId.delete(id);
  }

  #receipt(id: ThreadId): Receipt {
    return this.#byId.get(id) ?? { firstUnread: null, revision: `initial:${id}`, lastPublishedTurn: null };
  }

  #restore(id: ThreadId, receipt: Receipt): void {
    if (receipt.revision === `initial:${id}`) this.#byId.delete(id);
    else this.#byId.set(id, receipt);
  }

  /** Resolves once every line queued so far is written (or failed). */
  settled(): Promise<void> {
    return this.#appends.settled();
  }

  #queue(id: ThreadId, receipt: Receipt | null, nowMs: number): Promise<void> {
    const line = receipt === null
      ? { id, first_unread: null, revision: null, last_published_turn: null, updated_at: new Date(nowMs).toISOString() }
      : { id, first_unread: lineOf(receipt.firstUnread), revision: receipt.revision, last_published_turn: receipt.lastPublishedTurn, updated_at: new Date(nowMs).toISOString() };
    return this.#appends.post(async () => {
      await appendLine(this.#path, line);
      this.onRecorded(id, receipt);
    });
  }
}

/**
 * The read states a file of these lines gives, by thread id: the last line of an id wins, and
 * `"revision":null` forgets it. Lines of another shape, or torn by a crash, are skipped. (Pure:
 * `fleet import` reads a home's states with it too.)
 */
export function readStatesIn(lines: Iterable<string>): Map<string, Receipt> {
  const byId = new Map<string, Receipt>();
  for (const line of lines) learnReadStateLine(byId, line);
  return byId;
}

function learnReadStateLine(byId: Map<string, Receipt>, line: string): void {
  if (line.trim() === '') return;
  try {
    const entry = JSON.parse(line) as { id?: unknown; first_unread?: unknown; revision?: unknown; last_published_turn?: unknown };
    if (typeof entry.id !== 'string') return;
    const id = threadIdOf(entry.id);
    if (entry.revision === null) {
      byId.delete(id);
      return;
    }
    const firstUnread = positionOf(entry.first_unread);
    if (typeof entry.revision !== 'string' || firstUnread === undefined) return;
    const lastPublishedTurn = typeof entry.last_published_turn === 'string' ? entry.last_published_turn : null;
    byId.set(id, { firstUnread, revision: entry.revision, lastPublishedTurn });
  } catch {
    // skipped
  }
}

export function lineOf(position: UnreadPosition | null): unknown {
  if (position === null) return null;
  return position.type === 'turn' ? { type: 'turn', turn_id: position.turnId } : { type: 'thread_start' };
}

/** The line's position; undefined when it is of no known shape. */
export function positionOf(value: unknown): UnreadPosition | null | undefined {
  if (value === null) return null;
  if (typeof value !== 'object') return undefined;
  const position = value as { type?: unknown; turn_id?: unknown };
  if (position.type === 'thread_start') return { type: 'threadStart' };
  if (position.type === 'turn' && typeof position.turn_id === 'string') return { type: 'turn', turnId: position.turn_id };
  return undefined;
}
