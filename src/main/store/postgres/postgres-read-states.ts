// Where clients stopped reading each thread, on the PostgreSQL thread store: the threads row
// every host shares holds it (src/common/postgres/read-receipts.ts), so a thread marked read
// through one host is read through every other. Answers come from memory, as the files store's
// do (thread-read-states.ts): this host remembers the states it set, the ones its statements
// answered, and the one each lookup of a thread found (`learn`, from postgres-thread-store.ts:
// every cold read, resume and thread/readState/update looks the thread up first). So a thread
// loaded here that a client marks through another host shows the old state here until this host
// looks it up again or changes it; the store's row is exact, and a change made here applies to
// the row as it is then, not to what this host remembered.
//
// A mark is the store's check and change in one statement: of two marks expecting one revision,
// through any hosts, only the first applies. A turn's end is answered from memory at once (its
// notification must not wait for the database) and stored behind it; the row then keeps an
// earlier first unread turn whoever set it, and this host learns what the row became; a turn
// whose last lines were stored carried its receipt in that same statement (its revision made
// from the turn id on both sides, turn-end-revision.ts), so nothing more is written. Changes
// are stored one after another, so this host's later change is never overtaken by its earlier.
// A thread the store holds no row of (an ephemeral one) has its state in memory only.
import type { Pool } from 'pg';
import type { LogFn } from '../../../common/log.js';
import { Mailbox } from '../../../common/mailbox.js';
import { markReceipt, recordRevert, recordTurnEnd, type StoredReceipt, type StoredUnread } from '../../../common/postgres/read-receipts.js';
import { builtin } from '../../lazy-builtin.js';
import { turnEndRevision } from '../../../common/turn-end-revision.js';
import type { ReadStateKeeper } from '../thread-state-keepers.js';
import { lineOf, positionOf, type Receipt, type ThreadReadState } from '../files/thread-read-states.js';
import type { ThreadId } from '../../../common/thread-id.js';

const WRITE_DEADLINE_MS = 10_000;

export class PostgresReadStates implements ReadStateKeeper {
  readonly #byId = new Map<string, Receipt>();
  /** Threads with a change of this host on its way to the store: a lookup's older row must not undo it. */
  readonly #writing = new Map<string, number>();
  /** This host's writes of receipts, one at a time, in the order they were made. */
  readonly #writes = new Mailbox();

  constructor(
    private readonly pool: Pool,
    private readonly log: LogFn,
    readonly newRevision: () => string = () => builtin<typeof import('node:crypto')>('node:crypto').randomUUID(),
  ) {}

  get(threadId: ThreadId): ThreadReadState {
    const { firstUnread, revision } = this.#receipt(threadId);
    return { firstUnread, revision };
  }

  /** What a lookup of the thread found in the store. */
  learn(threadId: ThreadId, stored: StoredReceipt): void {
    const id = threadId;
    if (!this.#writing.has(id)) this.#remember(id, stored);
  }

  turnEnded(threadId: ThreadId, turnId: string, _nowMs: number, storedWithTurn = false): ThreadReadState {
    const id = threadId;
    const before = this.#receipt(id);
    // The revision the actor stored with the turn's last lines, when it did (turn-end-revision.ts).
    const receipt: Receipt = { firstUnread: before.firstUnread ?? { type: 'turn', turnId }, revision: turnEndRevision(turnId), lastPublishedTurn: turnId };
    this.#byId.set(id, receipt);
    if (!storedWithTurn) this.#store(id, receipt, () => recordTurnEnd(this.pool, threadId, turnId, receipt.revision, { deadlineMs: WRITE_DEADLINE_MS }));
    return this.get(id);
  }

  mark(threadId: ThreadId, operation: 'read' | 'unread', expectedRevision: string, _nowMs: number): Promise<{ changed: boolean; state: ThreadReadState }> {
    const id = threadId;
    const firstUnread = operation === 'read' ? null : ({ type: 'threadStart' } as const);
    return this.#inOrder(id, async () => {
      const mark = { firstUnread: lineOf(firstUnread) as StoredUnread | null, expectedRevision, initialRevision: initialRevision(id), newRevision: this.newRevision() };
      const marked = await markReceipt(this.pool, threadId, mark, { deadlineMs: WRITE_DEADLINE_MS });
      if (marked !== null) {
        this.#remember(id, marked.receipt);
        return { changed: marked.changed, state: this.get(id) };
      }
      const before = this.#receipt(id);
      if (before.revision !== expectedRevision) return { changed: false, state: this.get(id) };
      this.#byId.set(id, { firstUnread, revision: mark.newRevision, lastPublishedTurn: before.lastPublishedTurn });
      return { changed: true, state: this.get(id) };
    });
  }

  reverted(threadId: ThreadId, kept: ReadonlySet<string>, _nowMs: number): ThreadReadState | null {
    const id = threadId;
    const before = this.#receipt(id);
    if (before.firstUnread?.type !== 'turn' || kept.has(before.firstUnread.turnId)) return null;
    const receipt: Receipt = { firstUnread: null, revision: this.newRevision(), lastPublishedTurn: before.lastPublishedTurn };
    this.#byId.set(id, receipt);
    this.#store(id, receipt, () => recordRevert(this.pool, threadId, [...kept], receipt.revision, { deadlineMs: WRITE_DEADLINE_MS }));
    return this.get(id);
  }

  /** The row went with the thread (thread-changes.ts); only this host's memory of it is left. */
  async forget(threadId: ThreadId): Promise<void> {
    this.#byId.delete(threadId);
  }

  settled(): Promise<void> {
    return this.#writes.settled();
  }

  /** Stores a change made in memory; once stored, this host learns the row, unless it changed the thread again meanwhile. */
  #store(id: string, receipt: Receipt, write: () => Promise<StoredReceipt | null>): void {
    this.#inOrder(id, write)
      .then((stored) => {
        if (stored !== null && this.#byId.get(id) === receipt) this.#remember(id, stored);
      })
      .catch((error: unknown) => this.log('warn', 'cannot record a thread read state', { threadId: id, error: String(error) }));
  }

  #inOrder<T>(id: string, work: () => Promise<T>): Promise<T> {
    this.#writing.set(id, (this.#writing.get(id) ?? 0) + 1);
    return this.#writes.post(async () => {
      try {
        return await work();
      } finally {
        const left = (this.#writing.get(id) ?? 1) - 1;
        if (left === 0) this.#writing.delete(id);
        else this.#writing.set(id, left);
      }
    });
  }

  #remember(id: string, stored: StoredReceipt): void {
    if (stored.revision === null) this.#byId.delete(id);
    else this.#byId.set(id, { firstUnread: positionOf(stored.firstUnread) ?? null, revision: stored.revision, lastPublishedTurn: stored.lastPublishedTurn });
  }

  #receipt(id: string): Receipt {
    return this.#byId.get(id) ?? { firstUnread: null, revision: initialRevision(id), lastPublishedTurn: null };
  }
}

const initialRevision = (id: string): string => `initial:${id}`;
