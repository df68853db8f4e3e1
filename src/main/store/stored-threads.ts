// A store's threads as the request handlers see them, by thread id: whether the store holds a
// thread's history and where (a HistoryLocation the handlers pass to the workers without looking
// inside), where a new or reverted thread's history goes, and what clients change of a stored
// thread besides its history: its name, its archiving, its deletion (the handlers check the
// request, unload the thread and hold its ownership). The files store's are rollouts under
// <home>/sessions (files/files-threads.ts), the PostgreSQL store's rows of the threads table
// (postgres/postgres-threads.ts); reading and writing happen off the main thread, in the
// stored-history worker and the thread's actor.
import type { HistoryLocation, ListingSource } from '../../common/history-location.js';
import type { RevertRequest } from '../../common/actor-messages.js';
import type { RolloutSummary } from '../../common/stored-history-messages.js';
import type { WriterLock } from './writer-lock-backend.js';
import type { ThreadId } from '../../common/thread-id.js';

/** Where a reverted thread's history goes, and what its new actor is told of the old one. */
export interface RevertTarget {
  history: HistoryLocation;
  request: Omit<RevertRequest, 'beforeTurnId'>;
}

export interface StoredThreads {
  /** What thread/list pages are read from (the stored-history worker opens it). */
  readonly listing: ListingSource;
  /** Where an existing thread's history is; null when the store holds none for it, or holds it archived. */
  locate(threadId: ThreadId): Promise<HistoryLocation | null>;
  /** Where a cold resume reads the thread's history from; null when there is none it can continue. */
  locateResumable(threadId: ThreadId): Promise<HistoryLocation | null>;
  /** Where an archived thread's history is; null when the store holds none archived. */
  locateArchived(threadId: ThreadId): Promise<HistoryLocation | null>;
  /** Where a new thread's history will be written. */
  newThread(threadId: ThreadId, createdAtMs: number): HistoryLocation;
  /** Where the history of a thread reverted at `nowMs` is written, its previous one at `previous`. */
  revertTarget(threadId: ThreadId, previous: HistoryLocation, nowMs: number): RevertTarget;
  /** The thread's history is at `location` now (a revert's new file), once its load read it there. */
  historyMoved(threadId: ThreadId, location: HistoryLocation): void;
  /** A loaded thread's first lines reached its history (a file at `path`, or none for rows). */
  materialized(threadId: ThreadId, path: string | null): void;
  /** The thread's name as this host knows it (from memory), or null when it has none. */
  nameOf(threadId: ThreadId): string | null;
  /**
   * A thread/list row the store answered: what it holds of the thread besides the history
   * (name, read state, metadata), which this host then answers from memory. The files store's
   * rows hold none of it.
   */
  learnListed(summary: RolloutSummary): void;
  /** Names the thread, durably; the caller checked that it exists. */
  setName(threadId: ThreadId, name: string, nowMs: number): Promise<void>;
  /** Archives a stored thread whose writer lock (ownership) the caller holds. */
  archive(threadId: ThreadId, lock: WriterLock): Promise<void>;
  /** Unarchives the thread; where its history is then, or null when it was not archived. */
  unarchive(threadId: ThreadId, nowMs: number): Promise<HistoryLocation | null>;
  /**
   * Removes the thread's history, live or archived, and its name; the caller holds its writer
   * lock, or, for an ephemeral thread (no history anywhere), none.
   */
  remove(threadId: ThreadId, lock: WriterLock | null): Promise<void>;
  /** Everything of a deleted thread is gone from the store: what it projected elsewhere goes last. */
  forgotten(threadId: ThreadId): void;
}
