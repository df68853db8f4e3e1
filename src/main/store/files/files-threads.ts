// The files store's threads: the home's rollout files, found through the host's index of them,
// named in session_index.jsonl as the reference names them.
import { basename } from 'node:path';
import type { HistoryLocation, ListingSource } from '../../../common/history-location.js';
import { revertedRolloutPathFor, rolloutPathFor } from '../../../common/rollout/rollout-path.js';
import { internalError } from '../../../common/errors.js';
import type { RevertTarget, StoredThreads } from '../stored-threads.js';
import { uuidv7 } from '../../protocol/uuid.js';
import { fsPromises } from '../../lazy-builtin.js';
import { archivedThreadFiles, archiveRollouts, findArchivedRollout, unarchiveRollouts } from './archived-rollouts.js';
import { withFsDeadline } from './fs-deadline.js';
import type { RolloutIndex } from './rollout-index.js';
import { liveThreadFiles, startsWithSessionMeta } from './rollout-locator.js';
import type { ThreadNames } from './thread-names.js';
import type { ThreadId } from '../../../common/thread-id.js';

export class FilesThreads implements StoredThreads {
  readonly listing: ListingSource;

  constructor(
    private readonly home: string,
    private readonly rollouts: RolloutIndex,
    private readonly names: ThreadNames,
    /** What else the home keeps of a deleted thread (the codex state mirror's rows). */
    private readonly onForgotten: (threadId: ThreadId) => void,
  ) {
    this.listing = { store: 'files', home };
  }

  async locate(threadId: ThreadId): Promise<HistoryLocation | null> {
    return filesAt(await this.rollouts.find(threadId));
  }

  /** A file that does not start with a session_meta is no rollout the reference would resume either. */
  async locateResumable(threadId: ThreadId): Promise<HistoryLocation | null> {
    const path = await this.rollouts.find(threadId);
    return path !== null && (await startsWithSessionMeta(path)) ? filesAt(path) : null;
  }

  async locateArchived(threadId: ThreadId): Promise<HistoryLocation | null> {
    return filesAt(await findArchivedRollout(this.home, threadId));
  }

  newThread(threadId: ThreadId, createdAtMs: number): HistoryLocation {
    return { store: 'files', path: rolloutPathFor(this.home, threadId, createdAtMs) };
  }

  /** A new file, named for the revert, whose history base is the kept prefix of the previous one. */
  revertTarget(threadId: ThreadId, previous: HistoryLocation, nowMs: number): RevertTarget {
    if (previous.store !== 'files') throw internalError(`thread ${threadId}'s history is not a rollout file`);
    const path = revertedRolloutPathFor(this.home, threadId, uuidv7(nowMs), nowMs);
    return { history: { store: 'files', path }, request: { previousPath: previous.path, fileName: basename(path), atMs: nowMs } };
  }

  historyMoved(threadId: ThreadId, location: HistoryLocation): void {
    if (location.store === 'files') this.rollouts.remember(threadId, location.path);
  }

  materialized(threadId: ThreadId, path: string | null): void {
    if (path !== null) this.rollouts.remember(threadId, path);
  }

  nameOf(threadId: ThreadId): string | null {
    return this.names.get(threadId);
  }

  learnListed(): void {}

  setName(threadId: ThreadId, name: string, nowMs: number): Promise<void> {
    return this.names.set(threadId, name, nowMs);
  }

  /** Every file of the thread moves to archived_sessions/: its rollout and those it continues (a reverted thread's). */
  async archive(threadId: ThreadId): Promise<void> {
    await archiveRollouts(this.home, await withFsDeadline(liveThreadFiles(this.home, threadId), `finding the rollouts of thread ${threadId}`));
  }

  async unarchive(threadId: ThreadId, nowMs: number): Promise<HistoryLocation | null> {
    const path = await unarchiveRollouts(this.home, threadId, nowMs);
    if (path !== null) this.rollouts.remember(threadId, path);
    return filesAt(path);
  }

  /** Every file of the thread, live or archived, and its lines of session_index.jsonl. */
  async remove(threadId: ThreadId): Promise<void> {
    const [live, archived] = await withFsDeadline(
      Promise.all([liveThreadFiles(this.home, threadId), archivedThreadFiles(this.home, threadId)]),
      `finding the rollouts of thread ${threadId}`,
    );
    const files = [...live, ...archived];
    for (const file of files) await withFsDeadline(fsPromises().unlink(file), `removing ${file}`);
    await this.names.forget(threadId);
  }

  forgotten(threadId: ThreadId): void {
    this.onForgotten(threadId);
  }
}

const filesAt = (path: string | null): HistoryLocation | null => (path === null ? null : { store: 'files', path });
