// The PostgreSQL thread store as request handlers see it (thread_store = "postgres"): a thread
// exists when the store holds its history, and a new thread's history goes there. The main
// thread asks the store only what it cannot answer from memory (is there such a thread? a cold
// resume or a read of a thread not loaded here), and makes the changes clients ask for (a name,
// archiving, deletion), each statement with a deadline; histories are read and written by the
// workers.
//
// Names: the threads row holds them, so every host shows the same name for a thread it reads
// from the store. Thread objects are built on the main thread from memory, so this host keeps
// the names it learned: the ones it set, and the one each lookup (`locate`, which every cold
// read and resume makes) found. A thread loaded here that another host renames shows the old
// name here until this host looks it up again (thread/list rows show the stored name at once).
// A lookup teaches the thread's read state and metadata the same way (postgres-read-states.ts,
// postgres-thread-metadata.ts).
import { basename } from 'node:path';
import type { Pool } from 'pg';
import type { HistoryLocation, ListingSource } from '../../../common/history-location.js';
import { revertedRolloutPathFor } from '../../../common/rollout/rollout-path.js';
import type { RolloutSummary } from '../../../common/stored-history-messages.js';
import type { PostgresConnection } from '../../../common/postgres/postgres-connection.js';
import { archiveThread, deleteThread, renameThread, storedThreadState, unarchiveThread, type HeldThread } from '../../../common/postgres/thread-changes.js';
import { internalError } from '../../../common/errors.js';
import type { WriterLock } from '../writer-lock-backend.js';
import type { RevertTarget, StoredThreads } from '../stored-threads.js';
import { uuidv7 } from '../../protocol/uuid.js';
import type { PostgresReadStates } from './postgres-read-states.js';
import type { PostgresThreadMetadata } from './postgres-thread-metadata.js';
import { threadIdOf, type ThreadId } from '../../../common/thread-id.js';

const LOOKUP_DEADLINE_MS = 10_000;

export class PostgresThreads implements StoredThreads {
  readonly listing: ListingSource;
  readonly #location: HistoryLocation;
  /** Thread names this host learned (lower-case thread id → name). */
  readonly #names = new Map<string, string>();

  constructor(
    connection: PostgresConnection,
    private readonly pool: Pool,
    /** What lookups teach besides the name. */
    private readonly learners: { readStates: PostgresReadStates; metadata: PostgresThreadMetadata },
  ) {
    this.#location = { store: 'postgres', connection };
    this.listing = { store: 'postgres', connection };
  }

  /** The thread's history, once its first record is stored (a thread started but never written has none, as with files) and while it is not archived. */
  async locate(threadId: ThreadId): Promise<HistoryLocation | null> {
    const state = await this.#lookUp(threadId);
    return state?.written === true && !state.archived ? this.#location : null;
  }

  async locateArchived(threadId: ThreadId): Promise<HistoryLocation | null> {
    const state = await this.#lookUp(threadId);
    return state?.written === true && state.archived ? this.#location : null;
  }

  /** Every written thread can be resumed: the rows are records the store accepted. */
  locateResumable(threadId: ThreadId): Promise<HistoryLocation | null> {
    return this.locate(threadId);
  }

  newThread(): HistoryLocation {
    return this.#location;
  }

  /**
   * The thread's own rows, which its actor replaces with the kept history; the store records the
   * name the files store would give the new file as the thread's rollout name.
   */
  revertTarget(threadId: ThreadId, _previous: HistoryLocation, nowMs: number): RevertTarget {
    const fileName = basename(revertedRolloutPathFor('', threadId, uuidv7(nowMs), nowMs));
    return { history: this.#location, request: { previousPath: null, fileName, atMs: nowMs } };
  }

  historyMoved(): void {}

  materialized(): void {}

  nameOf(threadId: ThreadId): string | null {
    return this.#names.get(threadId) ?? null;
  }

  learnListed(summary: RolloutSummary): void {
    // A listed id is stored text: it takes its one form here.
    const id = threadIdOf(summary.threadId);
    if (summary.storedName !== undefined) this.#learnName(id, summary.storedName);
    if (summary.storedReceipt !== undefined) this.learners.readStates.learn(id, summary.storedReceipt);
    if (summary.storedMetadata !== undefined) this.learners.metadata.learn(id, summary.storedMetadata);
  }

  /** A thread loaded here that the store holds no row of (ephemeral) is named in this host's memory only. */
  async setName(threadId: ThreadId, name: string): Promise<void> {
    await renameThread(this.pool, threadId, name, { deadlineMs: LOOKUP_DEADLINE_MS });
    this.#names.set(threadId, name);
  }

  async archive(threadId: ThreadId, lock: WriterLock): Promise<void> {
    // Archived already (by another host meanwhile): as the files store, whose rollout moved, archiving again changes nothing.
    await archiveThread(this.pool, heldThread(threadId, lock), { deadlineMs: LOOKUP_DEADLINE_MS });
  }

  async unarchive(threadId: ThreadId): Promise<HistoryLocation | null> {
    const unarchived = await unarchiveThread(this.pool, threadId, { deadlineMs: LOOKUP_DEADLINE_MS });
    if (unarchived === null) return null;
    this.#learnName(threadId, unarchived.name);
    return this.#location;
  }

  /** Without a lock (an ephemeral thread), the store holds no row of it: only the name this host kept goes. */
  async remove(threadId: ThreadId, lock: WriterLock | null): Promise<void> {
    if (lock !== null) await deleteThread(this.pool, heldThread(threadId, lock), { deadlineMs: LOOKUP_DEADLINE_MS });
    this.#names.delete(threadId);
  }

  /** The rows went with the thread: nothing else holds it. */
  forgotten(): void {}

  /** What the store says of the thread, remembering its name, read state and metadata. */
  async #lookUp(threadId: ThreadId): Promise<{ written: boolean; archived: boolean } | null> {
    const state = await storedThreadState(this.pool, threadId, { deadlineMs: LOOKUP_DEADLINE_MS });
    if (state === null) return null;
    this.#learnName(threadId, state.name);
    this.learners.readStates.learn(threadId, state.receipt);
    this.learners.metadata.learn(threadId, state.metadata);
    return state;
  }

  #learnName(threadId: ThreadId, name: string | null): void {
    if (name === null) this.#names.delete(threadId);
    else this.#names.set(threadId, name);
  }
}

/** The ownership a lock of the PostgreSQL backend (postgres-writer-locks.ts) stands for. */
function heldThread(threadId: ThreadId, lock: WriterLock): HeldThread {
  const hostId = (lock as { hostId?: unknown }).hostId;
  if (typeof hostId !== 'string' || lock.fencing == null) throw internalError(`thread ${threadId} is not held in the thread store`);
  return { threadId, hostId, epoch: lock.fencing.epoch };
}
