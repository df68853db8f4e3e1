// Which store holds the home's thread histories, as the request handlers see it: rollout files
// under <home>/sessions (the default, shared with the reference), or the PostgreSQL thread
// store (thread_store = "postgres", src/main/store/postgres/postgres-threads.ts). Handlers ask it
// where a thread's history is and where a new one goes; reading and writing happen off the
// main thread, in the stored-history worker and the thread's actor. They also ask it to make
// what clients change of a stored thread besides its history: its name, its archiving, its
// deletion (the handlers check the request, unload the thread and hold its ownership).
import type { HistoryLocation } from '../../../common/history-location.js';
import type { RolloutSummary } from '../../../common/stored-history-messages.js';
import type { PostgresConnection } from '../../../common/postgres/postgres-connection.js';
import { rolloutPathFor } from '../../../common/rollout/rollout-path.js';
import type { WriterLock } from '../writer-lock-backend.js';
import { fsPromises } from '../../lazy-builtin.js';
import { archivedThreadFiles, archiveRollouts, findArchivedRollout, unarchiveRollouts } from './archived-rollouts.js';
import { withFsDeadline } from './fs-deadline.js';
import type { RolloutIndex } from './rollout-index.js';
import { liveThreadFiles } from './rollout-locator.js';
import type { ThreadNames } from './thread-names.js';

export interface ThreadStore {
  readonly kind: 'files' | 'postgres';
  /** The PostgreSQL store's connection settings, for the workers that read and write it; null for files. */
  readonly postgres: PostgresConnection | null;
  /** Where an existing thread's history is; null when the store holds none for it, or holds it archived. */
  locate(threadId: string): Promise<HistoryLocation | null>;
  /** Where an archived thread's history is; null when the store holds none archived. */
  locateArchived(threadId: string): Promise<HistoryLocation | null>;
  /** Where a new thread's history will be written. */
  newThread(threadId: string, createdAtMs: number): HistoryLocation;
  /**
   * Where a reverted thread's history is written: the files store's new rollout at `path`, or
   * the PostgreSQL store's rows of the thread, which its actor replaces.
   */
  revertedHistory(path: string): HistoryLocation;
  /**
   * Where the history of a materialized, non-ephemeral thread loaded here is, from the file its
   * identity names (null: none, as on the PostgreSQL store); null when there is none.
   */
  loadedHistory(path: string | null): HistoryLocation | null;
  /** The thread's history is at `location` now (a revert's new file), once its load read it there. */
  historyMoved(threadId: string, location: HistoryLocation): void;
  /** The thread's name as this host knows it (from memory), or null when it has none. */
  nameOf(threadId: string): string | null;
  /**
   * A thread/list row the store answered: what it holds of the thread besides the history
   * (name, read state, metadata), which this host then answers from memory. The files store's
   * rows hold none of it.
   */
  learnListed(summary: RolloutSummary): void;
  /** Names the thread, durably; the caller checked that it exists. */
  setName(threadId: string, name: string, nowMs: number): Promise<void>;
  /** Archives a stored thread whose writer lock (ownership) the caller holds. */
  archive(threadId: string, lock: WriterLock): Promise<void>;
  /** Unarchives the thread; where its history is then, or null when it was not archived. */
  unarchive(threadId: string, nowMs: number): Promise<HistoryLocation | null>;
  /**
   * Removes the thread's history, live or archived, and its name; the caller holds its writer
   * lock, or, for an ephemeral thread (no history anywhere), none.
   */
  remove(threadId: string, lock: WriterLock | null): Promise<void>;
  /** Lets go of connections (shutdown). */
  close(): Promise<void>;
}

/** The home's rollout files, found through the host's index of them. */
export class FilesThreadStore implements ThreadStore {
  readonly kind = 'files';
  readonly postgres = null;

  constructor(
    private readonly home: string,
    private readonly rollouts: RolloutIndex,
    private readonly names: ThreadNames,
  ) {}

  async locate(threadId: string): Promise<HistoryLocation | null> {
    return filesAt(await this.rollouts.find(threadId));
  }

  async locateArchived(threadId: string): Promise<HistoryLocation | null> {
    return filesAt(await findArchivedRollout(this.home, threadId));
  }

  newThread(threadId: string, createdAtMs: number): HistoryLocation {
    return { store: 'files', path: rolloutPathFor(this.home, threadId, createdAtMs) };
  }

  revertedHistory(path: string): HistoryLocation {
    return { store: 'files', path };
  }

  loadedHistory(path: string | null): HistoryLocation | null {
    return filesAt(path);
  }

  historyMoved(threadId: string, location: HistoryLocation): void {
    if (location.store === 'files') this.rollouts.remember(threadId, location.path);
  }

  nameOf(threadId: string): string | null {
    return this.names.get(threadId);
  }

  learnListed(): void {}

  setName(threadId: string, name: string, nowMs: number): Promise<void> {
    return this.names.set(threadId, name, nowMs);
  }

  /** Every file of the thread moves to archived_sessions/: its rollout and those it continues (a reverted thread's). */
  async archive(threadId: string): Promise<void> {
    await archiveRollouts(this.home, await withFsDeadline(liveThreadFiles(this.home, threadId), `finding the rollouts of thread ${threadId}`));
  }

  async unarchive(threadId: string, nowMs: number): Promise<HistoryLocation | null> {
    const path = await unarchiveRollouts(this.home, threadId, nowMs);
    if (path !== null) this.rollouts.remember(threadId, path);
    return filesAt(path);
  }

  /** Every file of the thread, live or archived, and its lines of session_index.jsonl. */
  async remove(threadId: string): Promise<void> {
    const [live, archived] = await withFsDeadline(
      Promise.all([liveThreadFiles(this.home, threadId), archivedThreadFiles(this.home, threadId)]),
      `finding the rollouts of thread ${threadId}`,
    );
    const files = [...live, ...archived];
    for (const file of files) await withFsDeadline(fsPromises().unlink(file), `removing ${file}`);
    await this.names.forget(threadId);
  }

  async close(): Promise<void> {}
}

const filesAt = (path: string | null): HistoryLocation | null => (path === null ? null : { store: 'files', path });
