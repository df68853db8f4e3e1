// A thread's history as rows of the PostgreSQL thread store. Its owner writes them under the
// epoch it acquired (every write fenced): the turns' appends, a fork's first lines, a revert's
// replacement. The store keeps each turn's read receipt with the turn's last lines.
import type { ActorHistory, ForkRequest, RevertRequest } from '../../../common/actor-messages.js';
import { describeLocation } from '../../../common/history-location.js';
import { parseRollout } from '../../../common/rollout/rollout-reader.js';
import { storedThreadPreview } from '../../../common/rollout/thread-preview.js';
import { turnEndRevision, type TurnEndReceipt } from '../../../common/turn-end-revision.js';
import { storedForkLines } from '../../rollout-writer/fork-rollout.js';
import type { SessionMetaInput } from '../../rollout-writer/rollout-format.js';
import { previewBeforeRevert, storedRevertLines } from '../../rollout-writer/revert-rollout.js';
import type { BackendContext } from '../backend-context.js';
import type { HistoryAppender, OrdinalStamp } from '../history-appender.js';
import { NO_PROJECTION, type HistoryBackend, type ResumedHistory } from '../history-backend.js';
import { resumePoint } from '../resume-point.js';
import { PostgresAppender } from './postgres-appender.js';
import { readStoredHistoryText, readStoredRollout, readStoredRolloutIfAny, replaceInStore } from './worker-postgres.js';

type PostgresHistory = Extract<ActorHistory, { store: 'postgres' }>;

// A revert's replacement of the thread's rows is one statement, like an append batch; past this
// its outcome is unknown and the revert fails (the rows are then the old history or the new).
const REPLACE_DEADLINE_MS = 5_000;

export class PostgresBackend implements HistoryBackend {
  readonly #context: BackendContext;
  /** Where the thread's rows are, and the store line the next write starts at. */
  #history: PostgresHistory;
  readonly name: string;
  readonly path = null;
  readonly projection = NO_PROJECTION;

  constructor(history: PostgresHistory, context: BackendContext) {
    this.#history = history;
    this.#context = context;
    this.name = describeLocation(history, context.threadId);
  }

  // The fork's rows hold its history itself, read from its source's rows when the source is in
  // the store too (fork-rollout.ts refuses a source it cannot read).
  async startFork(fork: ForkRequest, meta: SessionMetaInput, nowMs: number): Promise<void> {
    const sourceText = fork.source.store === 'postgres' ? await readStoredRolloutIfAny(fork.source.connection, fork.sourceThreadId) : null;
    await this.#writeFirstLines(storedForkLines(fork, sourceText, meta, nowMs));
  }

  // The thread's rows become what the files store's reader sees of a revert's new file.
  async startRevert(revert: RevertRequest, meta: SessionMetaInput): Promise<void> {
    const { threadId } = this.#context;
    const history = this.#history;
    const previous = await readStoredRollout(history.connection, threadId);
    const lines = storedRevertLines(previous, revert, meta);
    const replacement = { threadId, epoch: history.epoch, lines, createdAtMs: revert.atMs, rolloutName: revert.fileName, previousPreview: previewBeforeRevert(previous) };
    const replaced = await replaceInStore(history.connection, replacement, REPLACE_DEADLINE_MS);
    if (replaced === 'fenced') throw new Error(`thread ${threadId} is no longer held in the thread store; its revert changed nothing`);
    this.#history = { ...history, nextLine: lines.length };
  }

  async read(): Promise<ResumedHistory> {
    const { threadId } = this.#context;
    const stored = await readStoredHistoryText(this.#history.connection, threadId);
    const rollout = parseRollout(stored.text);
    rollout.preview = storedThreadPreview(stored.firstPreview, rollout.preview);
    return resumePoint(rollout, this.name, threadId);
  }

  openAppender(ordinals: OrdinalStamp | null): HistoryAppender {
    const appender = this.#appender(ordinals);
    const revoked = this.#context.revoked();
    if (revoked !== null) appender.revoke(revoked);
    return appender;
  }

  receipt(turnId: string): TurnEndReceipt {
    return { turnId, revision: turnEndRevision(turnId) };
  }

  /**
   * A new thread's first lines, written by its owner (a fenced append under the epoch it
   * acquired) before they are read back; its appender then goes on after them.
   */
  async #writeFirstLines(lines: string[]): Promise<void> {
    const appender = this.#appender(null);
    try {
      await appender.append(lines);
    } finally {
      await appender.close();
    }
    this.#history = { ...this.#history, nextLine: this.#history.nextLine + lines.length };
  }

  #appender(ordinals: OrdinalStamp | null): PostgresAppender {
    const { threadId, fence, emit } = this.#context;
    return new PostgresAppender(threadId, this.#history, {
      ordinals,
      fence,
      onFenced: (message) => emit({ type: 'writerFenced', threadId, message }),
    });
  }
}
