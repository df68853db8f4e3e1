// One loaded thread's actor, living in a pool worker. It owns the thread's history and its
// conversation with the model; the main thread owns everything clients see. Commands run one
// at a time through the actor's mailbox, so turns of one thread never interleave and close()
// waits for the turn ahead of it. The actor keeps that order and the quiet/fence/revoke/close
// protocol; the running turn (turn/) and the history's store (history/) do the rest.
import type { ActorEvent, ActorInit, ActorResumeState, CompactCommand, SteerCommand, ThreadSettings, ToolAnswer, TurnCommand, UserShellCommand } from '../common/actor-messages.js';
import type { ToolCallItem } from '../common/wire-types.js';
import type { Clock } from '../common/clock.js';
import { Mailbox } from '../common/mailbox.js';
import { usageOf } from '../common/token-usage.js';
import { WriteFence } from '../common/write-fence.js';
import { blockSynchronously, type Faults } from './faults.js';
import type { HistoryProjection } from './history/history-backend.js';
import { openHistoryBackend } from './history/open-history-backend.js';
import { createModelClient } from './model-client-factory.js';
import { resumeStateOf } from './resume-state.js';
import { legacyFormat } from './rollout-writer/legacy-format.js';
import { paginatedFormat } from './rollout-writer/paginated-format.js';
import type { HistoryMode, RolloutFormat, SessionMetaInput } from './rollout-writer/rollout-format.js';
import { CompactionTurn } from './turn/compaction-turn.js';
import { workerLog } from './worker-log.js';
import type { RunningTurn } from './turn/running-turn.js';
import { ThreadState } from './turn/thread-state.js';
import { UserTurn } from './turn/user-turn.js';
import { TurnWrites } from './turn/turn-writes.js';
import { userShellNote, UserShellTurn } from './turn/user-shell-turn.js';
import { harnessNoteLine, USER_SHELL_KIND } from './rollout-writer/harness-notes.js';

type Emit = (event: ActorEvent) => void;

/** What an actor keeps of its init for its whole life. */
type ActorIdentity = Pick<ActorInit, 'threadId' | 'resume' | 'serializeHistory' | 'fork' | 'revert'>;

export class ThreadActor {
  readonly #init: ActorIdentity;
  readonly #emit: Emit;
  readonly #faults: Faults;
  readonly #clock: Pick<Clock, 'now'>;
  readonly #mailbox = new Mailbox();
  readonly #fence: WriteFence;
  /** The conversation, the history's appender and format, shared with the running turn. */
  readonly #thread: ThreadState;
  /** A command is running (#fenced): the actor is not quiet, whatever a projection's end says. */
  #inCommand = false;
  /** The projection the last command's lines wait for, run past the command; null once it settled. */
  #projecting: Promise<void> | null = null;
  /** Why this process may no longer write the history (its writer lock was lost); null while it may. */
  #revoked: string | null = null;
  /** A fork's or a revert's settings, for the new history's session_meta, until load() has written it. */
  #forkSettings: ThreadSettings | null;
  /** Queued turns interrupted before they started. */
  readonly #interruptedEarly = new Set<string>();
  /** Turns posted and not yet begun, with the input steered into each before it began. */
  readonly #queued = new Map<string, SteerCommand[]>();
  /** The turn or compaction the mailbox is running; null between them. */
  #turn: RunningTurn | null = null;

  constructor(init: ActorInit, emit: Emit, faults: Faults, clock: Pick<Clock, 'now'>) {
    // Only what later commands read: the settings, provider and user agent of the init are
    // structured-clone copies made for this actor alone (~0.5 kB of strings), used only below.
    const { threadId, resume, serializeHistory, fork, revert } = init;
    this.#init = { threadId, resume, serializeHistory, fork, revert };
    this.#forkSettings = fork === undefined && revert === undefined ? null : init.settings;
    this.#emit = emit;
    this.#faults = faults;
    this.#clock = clock;
    this.#fence = new WriteFence(init.fence);
    const backend = openHistoryBackend(init.history, {
      threadId,
      fence: this.#fence,
      writerLease: init.writerLease,
      diskFaults: faults.disk,
      serializeHistory,
      emit,
      revoked: () => this.#revoked,
    });
    this.#thread = new ThreadState({
      threadId,
      session: init.session,
      emit,
      clock,
      model: createModelClient(init.provider, init.userAgent, init.session.originator),
      backend,
      format: formatFor(init.historyMode, threadId),
      materialized: resume,
      // Quiet before the host hears of a turn's end, so an unload that follows at once can be
      // fenced. A turn whose lines the reference's history database has yet to receive is
      // reported first and stays active until they are projected (#fenced): the turn's end
      // never waits for that transaction, and the writer lock is still never released before it.
      turnWritten: () => {
        if (this.#nothingOwed()) this.#fence.leave();
      },
    });
    // A new thread's history starts at ordinal 0; a resumed one's appender waits for load().
    if (!resume) this.#thread.openAppender(0);
  }

  /**
   * For a cold resume, replays the history and continues it in the format it is written in;
   * otherwise nothing to read. Refuses a history this host cannot append to, without touching
   * it. A fork's or a revert's first lines are written first (an ephemeral fork's history is
   * only read), then read back as any resume reads its history.
   */
  async load(): Promise<ActorResumeState | null> {
    const { fork, revert, threadId } = this.#init;
    const thread = this.#thread;
    if (!this.#init.resume) return null;
    if (fork !== undefined) await thread.backend.startFork(fork, this.#forkMeta(), this.#clock.now());
    if (revert !== undefined) await thread.backend.startRevert(revert, this.#forkMeta());
    const resumed = await thread.backend.read();
    if (resumed === null) return null;
    const { rollout, historyMode } = resumed;
    thread.format = formatFor(historyMode, threadId);
    thread.openAppender(resumed.nextOrdinal);
    thread.conversation = rollout.messages;
    if (rollout.lastTokenUsage) thread.totalUsage = usageOf(rollout.lastTokenUsage.total);
    return resumeStateOf(rollout, historyMode, this.#init.serializeHistory);
  }

  /** Queues a turn; it starts once every earlier command has finished. */
  startTurn(command: TurnCommand): void {
    const { turnId } = command;
    this.#queued.set(turnId, []);
    const takeSteered = (): SteerCommand[] => {
      const steered = this.#queued.get(turnId) ?? [];
      this.#queued.delete(turnId);
      return steered;
    };
    void this.#mailbox.post(() =>
      this.#fenced(() => this.#run(() => new UserTurn(this.#thread, command, this.#interruptedEarly.delete(turnId), this.#faults, takeSteered))),
    );
  }

  /** Queues a compaction; it runs, like a turn, once every earlier command has finished. */
  startCompaction(command: CompactCommand): void {
    void this.#mailbox.post(() =>
      this.#fenced(() => this.#run(() => new CompactionTurn(this.#thread, command, this.#interruptedEarly.delete(command.turnId)))),
    );
  }

  /** Aborts the running turn, or marks a queued one so it ends as soon as it starts. */
  interrupt(turnId: string): 'interrupting' | 'notRunning' {
    const turn = this.#running();
    if (turn?.turnId === turnId && turn.interrupt()) return 'interrupting';
    this.#interruptedEarly.add(turnId);
    return 'notRunning';
  }

  /** A tool's answer reaches the running turn that waits for it, outside the mailbox (the turn holds it). */
  answerTool(answer: ToolAnswer): 'answered' | 'late' {
    const turn = this.#running();
    return turn?.turnId === answer.turnId && turn.answerTool(answer) ? 'answered' : 'late';
  }

  /**
   * A call's item that finished after the call was answered (a command left running in the
   * background): recorded with the running turn's lines, or on its own between turns, under the
   * turn that made it, as the reference records it.
   */
  recordItem(turnId: string, item: ToolCallItem): void {
    const turn = this.#running();
    if (turn !== null && !turn.closing) return this.#queueItem(turn.writes, turnId, item);
    this.#writeBetweenTurns('a finished command', (writes) => this.#queueItem(writes, turnId, item));
  }

  // Lines that belong to no running turn, written as a mailbox command of their own, after the
  // commands ahead of them; a failed write is logged (the turn they name has ended).
  #writeBetweenTurns(what: string, queue: (writes: TurnWrites) => void): void {
    void this.#mailbox.post(() =>
      this.#fenced(async () => {
        const writes = new TurnWrites(this.#thread.appender);
        queue(writes);
        const { failure } = await writes.settle();
        if (failure !== null) workerLog('warn', `${what} could not be recorded in the thread history`, { threadId: this.#init.threadId, error: failure.message });
      }),
    );
  }

  #queueItem(writes: TurnWrites, turnId: string, item: ToolCallItem): void {
    const { threadId, format, clock, emit } = this.#thread;
    const at = this.#thread.queueAnchored(writes, 'item', format.standaloneItem(item, turnId, clock.now()));
    emit({ type: 'toolItemRecorded', threadId, turnId, itemId: item.id, ordinal: at.item });
  }

  /** The host's tools reach the running turn that asked for them. */
  answerHostTools(turnId: string, tools: unknown[]): 'answered' | 'late' {
    const turn = this.#running();
    return turn?.turnId === turnId && turn.answerHostTools(tools) ? 'answered' : 'late';
  }

  /**
   * Input joining a turn, at once: one that has not begun takes it after its own input; the
   * running one records it and, while the model is answering, restarts the sampling with it,
   * as the reference does. Input for a turn already closing is not sent to the model, and the
   * client hears so (a warning): its end is being written.
   */
  steer(command: SteerCommand): void {
    const queued = this.#queued.get(command.turnId);
    const turn = this.#running();
    if (queued !== undefined) queued.push(command);
    else if (turn?.turnId === command.turnId && !turn.closing) turn.steer(command);
    else {
      const message = `input sent to turn ${command.turnId} arrived as it ended and was not sent to the model`;
      this.#emit({ type: 'warning', threadId: this.#init.threadId, message });
    }
  }

  /**
   * A user's command ended. Its own turn is recorded like any turn, after the commands ahead of
   * it; one that joined the running turn is recorded in it at once. One whose turn ended first
   * is recorded between turns, and the model is given its result on the next turn.
   */
  recordUserShell(command: UserShellCommand): void {
    if (command.ownTurn) {
      void this.#mailbox.post(() => this.#fenced(() => this.#run(() => new UserShellTurn(this.#thread, command))));
      return;
    }
    const turn = this.#running();
    const text = userShellNote(command);
    if (turn?.turnId === command.turnId && !turn.closing) return turn.noteUserShell(command.item, text);
    this.#writeBetweenTurns('a user command', (writes) => {
      this.#thread.conversation = [...this.#thread.conversation, { role: 'user', text }];
      this.#queueItem(writes, command.turnId, command.item);
      writes.add('item', [harnessNoteLine(text, USER_SHELL_KIND, command.turnId, this.#thread.clock.now())]);
    });
  }

  /**
   * The host lost this thread's writer lock: at once, outside the mailbox (commands ahead of it
   * may be the very writes to stop), refuse every further append and abort the running turn.
   * The host fails the turn and unloads the thread; close() then only closes the history.
   */
  revokeWriter(reason: string): void {
    // Remembered too, for a resume whose appender is opened only after the history is read.
    this.#revoked = reason;
    this.#thread.appender?.revoke(reason);
    this.#thread.owed = [];
    this.#thread.backend.projection.stop();
    this.#running()?.stop();
  }

  /** Flushes and closes the history after the commands ahead of it (and the projection of their lines). */
  close(): Promise<void> {
    return this.#mailbox.post(async () => {
      const { appender, backend } = this.#thread;
      if (this.#faults.blockOnCloseMs > 0) blockSynchronously(this.#faults.blockOnCloseMs);
      await backend.projection.flush();
      if (appender && this.#thread.owed.length > 0 && appender.reset() === 'ready') {
        // Last chance to close a turn the store failed, before a later resume reads it as interrupted.
        await appender.append(this.#thread.owed.splice(0)).catch(() => undefined);
        await backend.projection.flush();
      }
      await appender?.close();
    });
  }

  // Runs one turn to its reported end. A throw the turn did not handle (a bug) must end that
  // turn, not kill the worker and every other thread on it through an unhandled rejection.
  async #run(open: () => RunningTurn): Promise<void> {
    let turn: RunningTurn | null = null;
    try {
      turn = open();
      this.#turn = turn;
      await turn.run();
    } catch (error) {
      await turn?.abandon(error);
    } finally {
      this.#turn = null;
    }
  }

  /** The turn between its start and its reported end; steered input and interrupts reach it. */
  #running(): RunningTurn | null {
    return this.#turn !== null && !this.#turn.reported ? this.#turn : null;
  }

  // Marks the actor active for the host while `work` runs, and quiet after it only when no
  // line is owed and none waits for its projection: the host releases the lock without waiting
  // for a quiet actor's close. The projection runs on past the command, so the next command
  // (the client's next turn) does not wait for it; the actor goes quiet once it is done.
  async #fenced<T>(work: () => Promise<T>): Promise<T> {
    this.#fence.enter();
    this.#inCommand = true;
    try {
      return await work();
    } finally {
      this.#inCommand = false;
      const { projection } = this.#thread.backend;
      if (projection.pending) this.#projectThenLeave(projection);
      else this.#leaveIfQuiet();
    }
  }

  // Projected before the host may release the writer lock: quiet only after the projection.
  #projectThenLeave(projection: HistoryProjection): void {
    const projecting = projection.flush();
    this.#projecting = projecting;
    void projecting.then(() => {
      if (this.#projecting !== projecting) return;
      this.#projecting = null;
      this.#leaveIfQuiet();
    });
  }

  #leaveIfQuiet(): void {
    if (!this.#inCommand && this.#nothingOwed()) this.#fence.leave();
  }

  // Nothing this actor must still write for lines that landed: none owed to the history, none
  // waiting for codex's history database or being projected there.
  #nothingOwed(): boolean {
    return this.#thread.owed.length === 0 && !this.#thread.backend.projection.pending && this.#projecting === null;
  }

  #forkMeta(): SessionMetaInput {
    const meta = this.#thread.sessionMeta(this.#forkSettings!);
    this.#forkSettings = null;
    return meta;
  }
}

function formatFor(mode: HistoryMode, threadId: string): RolloutFormat {
  return mode === 'paginated' ? paginatedFormat(threadId) : legacyFormat;
}
