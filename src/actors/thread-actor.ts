// One loaded thread's actor, living in a pool worker. It owns the thread's rollout file and
// its conversation with the model; the main thread owns everything clients see. Commands
// run one at a time through the actor's mailbox, so turns of one thread never interleave
// and close() waits for the turn ahead of it.
import type { ActorEvent, ActorInit, ActorResumeState, CompactCommand, SteerCommand, ThreadSettings, TurnCommand } from '../common/actor-messages.js';
import { COMPACTION_PROMPT, compactedConversation, summaryMessage } from '../common/rollout/compaction.js';
import { compactionLines } from './rollout-writer/compaction-lines.js';
import { taskStarted } from './rollout-writer/rollout-lines.js';
import type { Clock } from '../common/clock.js';
import { ownedUtf8 } from '../common/encoded-content.js';
import { fullTurns } from '../common/rollout/history-view.js';
import type { ParsedRollout } from '../common/rollout/rollout-reader.js';
import { Mailbox } from '../common/mailbox.js';
import { WriteFence } from '../common/write-fence.js';
import { addUsage, usageOf, ZERO_USAGE } from '../common/token-usage.js';
import type { ContextCompactionItem, ConversationMessage, ModelUsage, TurnError, UserInput, UserMessageItem } from '../common/wire-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../common/wire-types.js';
import { blockSynchronously, injectTurnFault, type Faults } from './faults.js';
import { legacyFormat } from './rollout-writer/legacy-format.js';
import type { HistoryAppender } from './history/history-appender.js';
import type { HistoryBackend, HistoryProjection } from './history/history-backend.js';
import { openHistoryBackend } from './history/open-history-backend.js';
import { paginatedFormat } from './rollout-writer/paginated-format.js';
import type { FormattedLines, HistoryMode, RolloutFormat, SessionMetaInput, TurnContextInput, TurnEnd, TurnTiming } from './rollout-writer/rollout-format.js';
import { createModelClient } from './model-client-factory.js';
import type { ModelClient } from './model/model-client.js';
import { ModelAbortedError } from './model/model-client.js';
import { streamReply, type Reply } from './reply-stream.js';
import { snakeCaseInfo, turnErrorOf } from './turn-error.js';
import { TurnWrites } from './turn-writes.js';
import { workerLog } from './worker-log.js';

type Emit = (event: ActorEvent) => void;

/** What an actor keeps of its init for its whole life. */
type ActorIdentity = Pick<ActorInit, 'threadId' | 'resume' | 'serializeHistory' | 'session' | 'fork' | 'revert'>;

export class ThreadActor {
  readonly #init: ActorIdentity;
  readonly #emit: Emit;
  readonly #faults: Faults;
  readonly #clock: Pick<Clock, 'now'>;
  /** How this thread's rollout is written: a new thread's as configured, a resumed one's as its file is. */
  #format: RolloutFormat;
  readonly #mailbox = new Mailbox();
  readonly #fence: WriteFence;
  readonly #model: ModelClient;
  #appender: HistoryAppender | null = null;
  /** Where the thread's history is read and written; the actor never asks which store that is. */
  readonly #backend: HistoryBackend;
  /** A command is running (#fenced): the actor is not quiet, whatever a projection's end says. */
  #inCommand = false;
  /** The projection the last command's lines wait for, run past the command; null once it settled. */
  #projecting: Promise<void> | null = null;
  /** Why this process may no longer write the rollout (its writer lock was lost); null while it may. */
  #revoked: string | null = null;
  /** What the model sees as history: every completed exchange so far. */
  #history: ConversationMessage[] = [];
  #materialized: boolean;
  /** A fork's or a revert's settings, for the new file's session_meta, until load() has written it. */
  #forkSettings: ThreadSettings | null;
  #totalUsage: ModelUsage = ZERO_USAGE;
  #running: { turnId: string; abort: AbortController } | null = null;
  /** Queued turns interrupted before they started. */
  readonly #interruptedEarly = new Set<string>();
  /** Turns posted and not yet begun, with the input steered into each before it began. */
  readonly #queued = new Map<string, SteerCommand[]>();
  /** The turn between its start and its reported end; steered input joins it. */
  #live: RunningTurn | null = null;
  /**
   * The terminal line of a turn whose start reached the rollout but whose end did not (the
   * disk failed): written ahead of the next turn's lines, so the file tells what the client
   * was told instead of leaving the turn open.
   */
  #owed: string[] = [];
  /** The turn in progress, for the safety net in startTurn. */
  #current: { turnId: string; startedAtMs: number; writes: TurnWrites; reported: boolean } | null = null;

  constructor(init: ActorInit, emit: Emit, faults: Faults, clock: Pick<Clock, 'now'>) {
    // Only what later commands read: the settings, provider and user agent of the init are
    // structured-clone copies made for this actor alone (~0.5 kB of strings), used only below.
    const { threadId, resume, serializeHistory, session, fork, revert } = init;
    this.#init = { threadId, resume, serializeHistory, session, fork, revert };
    this.#forkSettings = fork === undefined && revert === undefined ? null : init.settings;
    this.#emit = emit;
    this.#faults = faults;
    this.#clock = clock;
    this.#fence = new WriteFence(init.fence);
    this.#model = createModelClient(init.provider, init.userAgent, init.session.originator);
    this.#format = formatFor(init.historyMode, init.threadId);
    this.#backend = openHistoryBackend(init.history, {
      threadId,
      fence: this.#fence,
      writerLease: init.writerLease,
      diskFaults: faults.disk,
      serializeHistory: init.serializeHistory,
      emit,
      revoked: () => this.#revoked,
    });
    // A new thread's file starts at ordinal 0; a resumed one's appender waits for load().
    if (!init.resume) this.#appender = this.#openAppender(0);
    this.#materialized = init.resume;
  }

  /**
   * For a cold resume, replays the rollout and continues it in the format it is written in;
   * otherwise nothing to read. Refuses a file this host cannot append to, without touching it.
   * A fork's rollout is first written from its source (fork-rollout.ts); an ephemeral fork's
   * history is only read.
   */
  async load(): Promise<ActorResumeState | null> {
    const { fork, revert } = this.#init;
    if (!this.#init.resume) return null;
    // A fork's or a revert's first lines are written first, then read back as any resume reads its history.
    if (fork !== undefined) await this.#backend.startFork(fork, this.#forkMeta(), this.#clock.now());
    if (revert !== undefined) await this.#backend.startRevert(revert, this.#forkMeta());
    const resumed = await this.#backend.read();
    if (resumed === null) return null;
    this.#format = formatFor(resumed.historyMode, this.#init.threadId);
    this.#appender = this.#openAppender(resumed.nextOrdinal);
    return this.#replayed(resumed.rollout, resumed.historyMode);
  }

  // The model's history from the rollout read, and what the host is told of it.
  #replayed(parsed: ParsedRollout, historyMode: HistoryMode): ActorResumeState {
    this.#history = parsed.messages;
    if (parsed.lastTokenUsage) this.#totalUsage = usageOf(parsed.lastTokenUsage.total);
    return {
      historyMode,
      turns: parsed.turns,
      // Transferred to the main thread, so alone in its buffer.
      fullTurnsJson: this.#init.serializeHistory ? ownedUtf8(JSON.stringify(fullTurns(historyMode, parsed.turns))) : null,
      positions: parsed.positions,
      preview: parsed.preview,
      updatedAtMs: parsed.updatedAtMs,
      createdAtMs: parsed.meta?.createdAtMs ?? null,
      cwd: parsed.meta?.cwd ?? null,
      originator: parsed.meta?.originator ?? null,
      cliVersion: parsed.meta?.cliVersion ?? null,
      source: parsed.meta?.source?.value ?? null,
      forkedFromId: parsed.meta?.forkedFromId ?? null,
      modelProvider: parsed.meta?.modelProvider ?? null,
      model: parsed.meta?.model ?? null,
      lastTokenUsage: parsed.lastTokenUsage
        ? {
            total: usageOf(parsed.lastTokenUsage.total),
            last: usageOf(parsed.lastTokenUsage.last),
            modelContextWindow: parsed.lastTokenUsage.modelContextWindow,
          }
        : null,
    };
  }

  // Queues `formatted` and returns the ordinals its anchor lines will get if the writes land
  // (paged-history cursors of a paginated thread point at them).
  #queueAnchored(writes: TurnWrites, label: 'start' | 'item', formatted: FormattedLines): { turn: number | null; item: number | null } {
    const base = this.#appender?.peekOrdinal() ?? null;
    writes.add(label, formatted.lines);
    const at = (line: number | undefined) => (base === null || line === undefined ? null : base + line);
    return { turn: at(formatted.turnLine), item: at(formatted.itemLine) };
  }

  #openAppender(nextOrdinal: number): HistoryAppender | null {
    const stamp = this.#format.stampOrdinal;
    return this.#backend.openAppender(stamp === null ? null : { next: nextOrdinal, stamp });
  }

  /** Queues a turn; it starts once every earlier command has finished. */
  startTurn(command: TurnCommand): void {
    this.#queued.set(command.turnId, []);
    // A throw the turn did not handle (a bug) must end that turn, not kill the worker and
    // every other thread on it through an unhandled rejection.
    void this.#mailbox.post(() =>
      this.#fenced(() => this.#runTurn(command).catch((error: unknown) => this.#abandonTurn(command.turnId, error))),
    );
  }

  /** Aborts the running turn, or marks a queued one so it ends as soon as it starts. */
  interrupt(turnId: string): 'interrupting' | 'notRunning' {
    if (this.#live?.turnId === turnId) this.#live.interrupted = true;
    if (this.#running?.turnId === turnId) {
      this.#running.abort.abort();
      return 'interrupting';
    }
    this.#interruptedEarly.add(turnId);
    return 'notRunning';
  }

  /**
   * Input joining a turn, at once: one that has not begun takes it after its own input; the
   * running one records it and, while the model is answering, restarts the sampling with it,
   * as the reference does. Input for a turn already closing is not sent to the model, and the
   * client hears so (a warning): its end is being written.
   */
  steer(command: SteerCommand): void {
    const queued = this.#queued.get(command.turnId);
    const live = this.#live;
    if (queued !== undefined) queued.push(command);
    else if (live?.turnId === command.turnId && !live.closing) {
      this.#recordSteer(live, command);
      if (this.#running?.turnId === command.turnId) {
        live.restart = true;
        this.#running.abort.abort();
      }
    } else {
      const message = `input sent to turn ${command.turnId} arrived as it ended and was not sent to the model`;
      this.#emit({ type: 'warning', threadId: this.#init.threadId, message });
    }
  }

  #recordSteer(turn: RunningTurn, command: SteerCommand): void {
    const { threadId } = this.#init;
    const now = this.#clock.now();
    const item: UserMessageItem = { type: 'userMessage', id: command.userItemId, clientId: command.clientId, content: command.input, startedAtMs: now, completedAtMs: now };
    const at = this.#queueAnchored(turn.writes, 'item', this.#format.userInput(item, turn.turnId, now));
    turn.exchange.push({ role: 'user', text: textOf(command.input) });
    this.#emit({ type: 'userItem', threadId, turnId: turn.turnId, item, ordinal: at.item });
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
      if (this.#backend.projection.pending) this.#projectThenLeave(this.#backend.projection);
      else this.#leaveIfQuiet();
    }
  }

  // Projected before the host may release the writer lock: quiet only after the projection.
  #projectThenLeave(projector: HistoryProjection): void {
    const projecting = projector.flush();
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

  // Nothing this actor must still write for lines that landed: none owed to the rollout, none
  // waiting for codex's history database or being projected there.
  #nothingOwed(): boolean {
    return this.#owed.length === 0 && !(this.#backend.projection.pending) && this.#projecting === null;
  }

  /**
   * The host lost this thread's writer lock: at once, outside the mailbox (commands ahead of it
   * may be the very writes to stop), refuse every further append and abort the running turn.
   * The host fails the turn and unloads the thread; close() then only closes the file.
   */
  revokeWriter(reason: string): void {
    // Remembered too, for a resume whose appender is opened only after the file is read.
    this.#revoked = reason;
    this.#appender?.revoke(reason);
    this.#owed = [];
    this.#backend.projection.stop();
    this.#running?.abort.abort();
  }

  /** Flushes and closes the rollout after the commands ahead of it (and the projection of their lines). */
  close(): Promise<void> {
    return this.#mailbox.post(async () => {
      if (this.#faults.blockOnCloseMs > 0) blockSynchronously(this.#faults.blockOnCloseMs);
      await this.#backend.projection.flush();
      if (this.#appender && this.#owed.length > 0 && this.#appender.reset() === 'ready') {
        // Last chance to close a turn the disk failed, before a later resume reads it as interrupted.
        await this.#appender.append(this.#owed.splice(0)).catch(() => undefined);
        await this.#backend.projection.flush();
      }
      await this.#appender?.close();
    });
  }

  // A turn, top to bottom: open it (events, the rollout lines that start it), sample the
  // model, close it (the lines that end it), wait for the disk, then report its end.
  async #runTurn(command: TurnCommand): Promise<void> {
    const turn = this.#beginTurn(command);
    const fault = this.#faults.turnFaults.get(turn.userText);
    if (fault !== undefined) {
      // Strike mid-turn, after the user message reached the rollout, as a real fault would.
      await turn.writes.settle();
      injectTurnFault(fault);
    }
    let reply: Reply;
    let outcome: TurnOutcome;
    // Sampled again while input steered in is unanswered: cut short by it (the partial reply
    // is dropped), or come after the model answered.
    do {
      reply = { agentItem: null, firstTokenMs: null };
      const asked = turn.exchange.length;
      outcome = await this.#sample(command.settings, command.outputSchema ?? null, turn, reply, true);
      if (turn.restart && !turn.interrupted) {
        turn.restart = false;
        turn.abort = new AbortController();
        continue;
      }
      // The model's next view is what a resume would rebuild from the rollout: the user messages
      // of every turn, and the assistant message whenever one was completed, whatever the outcome.
      if (reply.agentItem?.completedAtMs != null) turn.exchange.splice(asked, 0, { role: 'assistant', text: reply.agentItem.text });
      if (outcome.status !== 'completed' || turn.exchange.at(-1)!.role !== 'user') break;
      turn.abort = new AbortController();
    } while (true);
    turn.closing = true;
    this.#history = [...this.#history, ...turn.exchange];
    await this.#endTurn(turn, endOf(outcome, reply.agentItem?.text ?? null, reply.firstTokenMs), outcome);
  }

  /** Queues a compaction; it runs, like a turn, once every earlier command has finished. */
  startCompaction(command: CompactCommand): void {
    void this.#mailbox.post(() =>
      this.#fenced(() => this.#runCompaction(command).catch((error: unknown) => this.#abandonTurn(command.turnId, error, false))),
    );
  }

  // A compaction, as the reference runs thread/compact/start: a turn with no user message whose
  // one item is the compaction; the model is asked for a summary (COMPACTION_PROMPT), and its
  // answer replaces the conversation (compaction.ts). One that fails or is interrupted leaves
  // the conversation as it was.
  async #runCompaction(command: CompactCommand): Promise<void> {
    const { threadId } = this.#init;
    const { turnId, settings } = command;
    const turn = this.#openTurn(turnId, settings, COMPACTION_PROMPT);
    const start = { lines: [taskStarted(turnId, Math.floor(turn.startedAtMs / 1000), turn.startedAtMs)], turnLine: 0 };
    this.#announceStart(turn, this.#queueAnchored(turn.writes, 'start', start).turn);
    const item: ContextCompactionItem = { type: 'contextCompaction', id: command.itemId, startedAtMs: this.#clock.now(), completedAtMs: null };
    this.#emit({ type: 'compactionStarted', threadId, turnId, item: { ...item } });
    const reply: Reply = { agentItem: null, firstTokenMs: null };
    const outcome = await this.#sample(settings, null, turn, reply, false);
    if (outcome.status === 'completed') {
      const summaryText = reply.agentItem?.text ?? '';
      const conversation = compactedConversation(this.#history, summaryMessage(summaryText));
      item.completedAtMs = this.#clock.now();
      const summaryItemId = reply.agentItem?.id ?? command.itemId;
      const lines = compactionLines({ threadId, turnId, summaryItemId, summaryText, conversation, item }, item.completedAtMs);
      const at = this.#queueAnchored(turn.writes, 'item', lines);
      this.#history = conversation;
      this.#emit({ type: 'compactionCompleted', threadId, turnId, item, ordinal: at.item });
    }
    // A compaction's end moves no read state (the host publishes none for it).
    await this.#endTurn(turn, endOf(outcome, null, null), outcome, false);
  }

  #beginTurn(command: TurnCommand): RunningTurn {
    const { threadId } = this.#init;
    const { turnId, settings } = command;
    const turn = this.#openTurn(turnId, settings, textOf(command.input));
    const userItem: UserMessageItem = {
      type: 'userMessage',
      id: command.userItemId,
      clientId: command.clientId,
      content: command.input,
      startedAtMs: turn.startedAtMs,
      completedAtMs: turn.startedAtMs,
    };
    const start = this.#format.turnStart({ threadId, turnId, startedAtMs: turn.startedAtMs, context: this.#turnContext(turnId, settings), userItem });
    const at = this.#queueAnchored(turn.writes, 'start', start);
    this.#announceStart(turn, at.turn);
    this.#emit({ type: 'userItem', threadId, turnId, item: userItem, ordinal: at.item });
    for (const steered of this.#queued.get(turnId) ?? []) this.#recordSteer(turn, steered);
    this.#queued.delete(turnId);
    return turn;
  }

  // What every turn does first, before its own start lines: it becomes the running one, and
  // the thread's first turn queues the file's session_meta, then any lines owed from before.
  #openTurn(turnId: string, settings: ThreadSettings, userText: string): RunningTurn {
    const abort = new AbortController();
    const interrupted = this.#interruptedEarly.delete(turnId);
    if (interrupted) abort.abort();
    const startedAtMs = this.#clock.now();
    // A failed append stops the appender; between turns a gap is harmless (the owed line
    // closes the failed turn), so the disk gets another chance with this turn.
    this.#appender?.reset();
    this.#backend.projection.nextTurn();
    // Appends are chained inside the appender, so the turn does not wait for the disk
    // between lines; it waits once, before reporting the turn's end.
    const writes = new TurnWrites(this.#appender);
    this.#current = { turnId, startedAtMs, writes, reported: false };
    const wroteMeta = !this.#materialized && this.#appender !== null;
    if (wroteMeta) writes.add('meta', this.#format.sessionMeta(this.#sessionMeta(settings), startedAtMs));
    const owed = this.#owed.splice(0);
    writes.add('owed', owed);
    const turn: RunningTurn = { turnId, startedAtMs, abort, writes, wroteMeta, owed, userText, exchange: [{ role: 'user', text: userText }], restart: false, interrupted, closing: false };
    this.#live = turn;
    return turn;
  }

  #announceStart(turn: RunningTurn, ordinal: number | null): void {
    const { threadId } = this.#init;
    this.#emit({ type: 'turnStarted', threadId, turnId: turn.turnId, startedAtMs: turn.startedAtMs, ordinal });
    if (turn.wroteMeta) {
      this.#materialized = true;
      this.#emit({ type: 'materialized', threadId, path: this.#backend.path });
    }
  }

  // Streams the reply, telling the host each step and queueing what the rollout keeps.
  // A compaction's sampling (`agentItems` false) keeps its reply to itself: the summary is no
  // agent message.
  async #sample(settings: ThreadSettings, outputSchema: unknown, turn: RunningTurn, reply: Reply, agentItems: boolean): Promise<TurnOutcome> {
    const { threadId } = this.#init;
    const { turnId, writes, abort } = turn;
    this.#running = { turnId, abort };
    // The turn's own messages so far follow the thread's; the last is the user's, answered now.
    const history = [...this.#history, ...turn.exchange];
    const userText = history.pop()!.text;
    const request = {
      model: settings.model,
      baseInstructions: settings.baseInstructions,
      developerInstructions: settings.developerInstructions,
      history,
      userText,
      effort: settings.effort,
      outputSchema,
      threadId,
      turnId,
      signal: abort.signal,
      onRetry: (attempt: number, max: number, reason: string) =>
        this.#emit({ type: 'retrying', threadId, turnId, message: `Reconnecting... ${attempt}/${max} (${reason})` }),
    };
    try {
      await streamReply(this.#model, request, turn.startedAtMs, this.#clock, reply, {
        itemStarted: (item) => agentItems && this.#emit({ type: 'agentItemStarted', threadId, turnId, item }),
        delta: (itemId, delta) => agentItems && this.#emit({ type: 'agentDelta', threadId, turnId, itemId, delta }),
        itemCompleted: (item) => {
          if (!agentItems) return;
          const at = this.#queueAnchored(writes, 'item', this.#format.agentMessage(item, turnId, item.completedAtMs!));
          this.#emit({ type: 'agentItemCompleted', threadId, turnId, item, ordinal: at.item });
        },
        usage: (last) => {
          this.#totalUsage = addUsage(this.#totalUsage, last);
          const usage = { total: this.#totalUsage, last, modelContextWindow: DEFAULT_MODEL_CONTEXT_WINDOW };
          writes.add('item', this.#format.tokenCount(usage, turnId, this.#clock.now()));
          this.#emit({ type: 'tokenUsage', threadId, turnId, usage });
        },
      });
      return { status: 'completed', error: null };
    } catch (error) {
      if (error instanceof ModelAbortedError || abort.signal.aborted) return { status: 'interrupted', error: null };
      return { status: 'failed', error: turnErrorOf(error) };
    } finally {
      this.#running = null;
    }
  }

  // Records the turn's end, waits for every line of it to reach the kernel, then reports it.
  // `end` is how the rollout closes the turn when its lines land.
  async #endTurn(turn: RunningTurn, end: TurnEnd, sampled: TurnOutcome, movesReadState = true): Promise<void> {
    const { threadId } = this.#init;
    const { turnId, writes } = turn;
    let outcome = sampled;
    const completedAtMs = this.#clock.now();
    const timing = timingOf(turnId, turn.startedAtMs, completedAtMs);
    // The read receipt the host publishes for a completed or failed turn goes with the turn's
    // last lines, on a store that keeps it (the PostgreSQL one): one statement, not two.
    const receipt = movesReadState && end.status !== 'interrupted' ? this.#backend.receipt(turnId) : undefined;
    writes.add('end', this.#format.turnEnd(timing, end, completedAtMs), receipt);
    const { failure, landed } = await writes.settle();
    if (failure !== null) {
      if (outcome.status === 'completed') {
        const message = `failed to record the turn in the thread history: ${failure.message}`;
        outcome = { status: 'failed', error: { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null } };
      }
      // What landed is a prefix of what was queued. Without session_meta the file is no
      // rollout yet, so the next turn writes it first; lines owed from before stay owed; a
      // turn whose start landed is owed its end; one whose start did not is not in the file.
      if (turn.wroteMeta && !landed.has('meta')) this.#materialized = false;
      if (turn.owed.length > 0 && !landed.has('owed')) this.#owed = turn.owed;
      else if (landed.has('start')) this.#owed = this.#format.turnEnd(timing, endOf(outcome, null, null), completedAtMs);
    }
    this.#current!.reported = true;
    this.#live = null;
    // Every line of the turn is with the kernel: quiet before the host hears of the end, so an
    // unload that follows at once can be fenced. Nothing below writes. A turn whose lines the
    // reference's history database has yet to receive is reported first and stays active
    // until they are projected (#fenced): the turn's end never waits for that transaction,
    // and the writer lock is still never released before it.
    if (this.#nothingOwed()) this.#fence.leave();
    this.#emit({
      type: 'turnEnded',
      threadId,
      turnId,
      status: outcome.status,
      error: outcome.error,
      completedAtMs,
      durationMs: timing.durationMs,
      persisted: failure === null,
    });
  }

  // The safety net: the turn threw past its own handling. Report it failed so the client is
  // not left waiting, and close it in the rollout the same way if its start is there.
  async #abandonTurn(turnId: string, error: unknown, movesReadState = true): Promise<void> {
    this.#running = null;
    this.#live = null;
    const current = this.#current;
    if (current === null || current.turnId !== turnId || current.reported) return;
    current.reported = true;
    const completedAtMs = this.#clock.now();
    const message = `the thread actor failed during the turn: ${error instanceof Error ? error.message : String(error)}`;
    workerLog('error', message, { threadId: this.#init.threadId, turnId, stack: error instanceof Error ? error.stack : undefined });
    const failed = { status: 'failed' as const, error: { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null } };
    const timing = timingOf(turnId, current.startedAtMs, completedAtMs);
    let persisted = false;
    const { failure, landed } = await current.writes.settle();
    if (failure === null && landed.has('start')) {
      const end = new TurnWrites(this.#appender);
      // Failed: the host publishes its read state, stored with these lines as in #endTurn.
      end.add('end', this.#format.turnEnd(timing, endOf(failed, null, null), completedAtMs), movesReadState ? this.#backend.receipt(turnId) : undefined);
      persisted = (await end.settle()).failure === null;
    }
    this.#emit({ type: 'turnEnded', threadId: this.#init.threadId, turnId, ...failed, completedAtMs, durationMs: timing.durationMs, persisted });
  }

  #forkMeta(): SessionMetaInput {
    const meta = this.#sessionMeta(this.#forkSettings!);
    this.#forkSettings = null;
    return meta;
  }

  #sessionMeta(settings: ThreadSettings): SessionMetaInput {
    const { session, threadId } = this.#init;
    return {
      threadId,
      createdAtMs: session.createdAtMs,
      cwd: settings.cwd,
      originator: session.originator,
      cliVersion: session.cliVersion,
      source: 'vscode',
      modelProvider: settings.modelProvider,
      model: settings.model,
      baseInstructions: settings.baseInstructions,
    };
  }

  #turnContext(turnId: string, settings: ThreadSettings): TurnContextInput {
    return {
      turnId,
      cwd: settings.cwd,
      approvalPolicy: typeof settings.approvalPolicy === 'string' ? settings.approvalPolicy : 'on-request',
      approvalsReviewer: settings.approvalsReviewer,
      sandboxMode: settings.sandboxMode as TurnContextInput['sandboxMode'],
      model: settings.model,
      effort: settings.effort,
      developerInstructions: settings.developerInstructions,
    };
  }
}

/** How the sampling ended, as the client will be told. */
type TurnOutcome = { status: 'completed' | 'interrupted' | 'failed'; error: TurnError | null };

/** A turn between its start and its reported end. */
interface RunningTurn {
  turnId: string;
  startedAtMs: number;
  abort: AbortController;
  writes: TurnWrites;
  /** This turn queued the file's session_meta (the thread's first turn). */
  wroteMeta: boolean;
  /** Lines owed by an earlier turn, queued ahead of this one's. */
  owed: string[];
  userText: string;
  /** The turn's messages in order: its input, input steered in, the model's answers. */
  exchange: ConversationMessage[];
  /** Input was steered in while the model answered: sample again with it. */
  restart: boolean;
  interrupted: boolean;
  /** Its end is being written: input for it comes too late. */
  closing: boolean;
}

/** The text parts of an input, as the model's conversation keeps them. */
function textOf(input: readonly UserInput[]): string {
  return input.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function timingOf(turnId: string, startedAtMs: number, completedAtMs: number): TurnTiming {
  return {
    turnId,
    startedAtSec: Math.floor(startedAtMs / 1000),
    completedAtSec: Math.floor(completedAtMs / 1000),
    durationMs: completedAtMs - startedAtMs,
  };
}

/** The rollout's view of an outcome; a failed turn records its error in snake_case. */
function endOf(outcome: TurnOutcome, lastAgentMessage: string | null, timeToFirstTokenMs: number | null): TurnEnd {
  if (outcome.status === 'completed') return { status: 'completed', lastAgentMessage, timeToFirstTokenMs };
  if (outcome.status === 'interrupted') return { status: 'interrupted' };
  return { status: 'failed', message: outcome.error!.message, codexErrorInfo: snakeCaseInfo(outcome.error!.codexErrorInfo) };
}

function formatFor(mode: HistoryMode, threadId: string): RolloutFormat {
  return mode === 'paginated' ? paginatedFormat(threadId) : legacyFormat;
}
