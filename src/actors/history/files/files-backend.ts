// A thread's history as the reference keeps it: a rollout file in the home, appended by one
// RolloutAppender, and, for a paginated file when configured, projected into codex's history
// database as its lines land (the projection is this store's alone).
import { basename } from 'node:path';
import type { ForkRequest, RevertRequest } from '../../../common/actor-messages.js';
import { readRollout } from '../../../common/rollout/rollout-reader.js';
import { parseRevertedRolloutFileName } from '../../../common/rollout/rollout-path.js';
import { threadPreview } from '../../../common/rollout/thread-preview.js';
import type { SessionMetaInput } from '../../rollout-writer/rollout-format.js';
import { workerLog } from '../../worker-log.js';
import type { BackendContext } from '../backend-context.js';
import type { HistoryAppender, OrdinalStamp } from '../history-appender.js';
import { NO_PROJECTION, type HistoryBackend, type HistoryProjection, type ResumedHistory } from '../history-backend.js';
import { resumePoint } from '../resume-point.js';
import { configuredHistoryDatabase } from './codex-history-db/history-databases.js';
import { ThreadHistoryProjector } from './codex-history-db/thread-history-projector.js';
import { writeForkRollout } from './fork-file.js';
import { RolloutAppender } from './rollout-appender.js';
import { writeRevertRollout } from './revert-file.js';

export class FilesBackend implements HistoryBackend {
  readonly #context: BackendContext;
  readonly path: string;
  /** Keeps the reference's history database current for a paginated rollout; null when off. */
  #projector: ThreadHistoryProjector | null = null;

  constructor(path: string, context: BackendContext) {
    this.path = path;
    this.#context = context;
  }

  get name(): string {
    return this.path;
  }

  get projection(): HistoryProjection {
    return this.#projector ?? NO_PROJECTION;
  }

  startFork(fork: ForkRequest, meta: SessionMetaInput, nowMs: number): Promise<void> {
    return writeForkRollout(this.path, fork, meta, nowMs);
  }

  startRevert(revert: RevertRequest, meta: SessionMetaInput): Promise<void> {
    return writeRevertRollout(this.path, revert, meta);
  }

  async read(): Promise<ResumedHistory> {
    const { threadId } = this.#context;
    const rollout = await readRollout(this.path);
    rollout.preview = threadPreview(this.path, threadId, rollout.preview);
    return resumePoint(rollout, this.name, threadId);
  }

  openAppender(ordinals: OrdinalStamp | null): HistoryAppender {
    const { threadId, emit, fence, writerLease } = this.#context;
    this.#projector = ordinals === null ? null : this.#openProjector();
    const projector = this.#projector;
    const appender = new RolloutAppender(this.path, {
      faults: this.#context.diskFaults,
      ordinals,
      lease: writerLease,
      // A lease means a lock another host can take over while this one lives (lockfile homes):
      // nothing may be acknowledged or left behind that is not at the file server yet.
      syncEachBatch: writerLease !== null,
      onNotice: (message) => emit({ type: 'warning', threadId, message }),
      fence,
      onLanded: projector === null ? null : (offset, bytes) => projector.landed(offset, bytes),
    });
    const revoked = this.#context.revoked();
    if (revoked !== null) appender.revoke(revoked);
    return appender;
  }

  // The files store's read receipt is kept by the host (thread-read-states.ts), so no revision
  // is derived for it (a hash per turn).
  receipt(): undefined {
    return undefined;
  }

  #openProjector(): ThreadHistoryProjector | null {
    const database = configuredHistoryDatabase();
    if (database === null) return null;
    const { threadId, fence, revoked } = this.#context;
    // The reference projects each file a revert started under that file's own id, its lines
    // after the history base that names the prefix it continues (reference-answers/
    // thread-revert.jsonl), and a thread's first file under the thread's id.
    const reverted = parseRevertedRolloutFileName(basename(this.path));
    return new ThreadHistoryProjector({
      threadId: reverted?.fileId ?? threadId,
      rolloutPath: this.path,
      database,
      holdsWriterLock: () => revoked() === null && !fence.fenced,
      log: workerLog,
    });
  }
}
