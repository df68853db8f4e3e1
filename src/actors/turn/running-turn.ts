// A turn between its start and its reported end, held once: what it has queued for the
// history, the messages it adds to the conversation, and what it is waiting for (the model,
// or an answer from outside it) so that an interrupt, steered input or a lost writer lock
// reaches whatever that is. A user's turn (user-turn.ts) and a compaction
// (compaction-turn.ts) differ only in what they ask the model and what they keep of it.
import type { SteerCommand, ThreadSettings, ToolAnswer } from '../../common/actor-messages.js';
import { addUsage } from '../../common/token-usage.js';
import type { CommandExecutionItem, ConversationMessage, ModelUsage, UserMessageItem } from '../../common/wire-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../../common/wire-types.js';
import { ModelAbortedError } from '../model/model-client.js';
import type { TurnEnd } from '../rollout-writer/rollout-format.js';
import { workerLog } from '../worker-log.js';
import { streamReply, type Reply } from './reply-stream.js';
import type { ThreadState } from './thread-state.js';
import { turnErrorOf } from './turn-error.js';
import { endOf, hostFailure, timingOf, type TurnOutcome } from './turn-outcome.js';
import { TurnWrites } from './turn-writes.js';
import { TurnNotes } from './turn-notes.js';
import { textOf } from './model-calls.js';
import { conversationMessageOf, type UserContent } from './user-content.js';
import { SteerQueue } from './steer-queue.js';
import { ToolCalls } from './tool-calls.js';

export { textOf };

/** How a turn is opened. */
export interface TurnOpening {
  turnId: string;
  settings: ThreadSettings;
  /** What the model is asked first: the user's text, or the compaction prompt. */
  userText: string;
  /** The client interrupted it before it began: it ends at once, as interrupted. */
  interrupted: boolean;
  /** Its end moves the thread's read state (a compaction's does not: the host publishes none for it). */
  movesReadState: boolean;
  /** When it began, if before the actor heard of it (a user's command the host ran). */
  startedAtMs?: number;
}


export abstract class RunningTurn {
  readonly turnId: string;
  readonly startedAtMs: number;
  readonly userText: string;
  /** Interrupted by the client: whatever it waits for is cut short, and it ends interrupted. */
  interrupted: boolean;
  /** Its end is being written: input for it comes too late. */
  closing = false;
  /** Its end was reported (or it was abandoned): commands for it find no running turn. */
  reported = false;
  protected readonly thread: ThreadState;
  readonly writes: TurnWrites;
  /** The turn's messages in order: its input, input steered in, the model's answers. */
  protected readonly exchange: ConversationMessage[];
  /** This turn queued the history's session_meta (the thread's first turn). */
  readonly #wroteMeta: boolean;
  /** Lines owed by an earlier turn, queued ahead of this one's. */
  readonly #owed: string[];
  readonly #movesReadState: boolean;
  /** Aborts what the turn waits for; renewed for each sampling after the first. */
  #abort = new AbortController();
  /** What the turn is waiting for, which an interrupt cuts short: nothing between waits. */
  #waiting: 'model' | 'outside' | null = null;
  /** Input was steered in while the model answered: sample again with it. */
  #restart = false;
  /** The tool calls of the last sampling that wait for the host's answer. */
  readonly #toolCalls: ToolCalls;
  /** The turn's tools with the host's MCP servers' among them, as the host composed them; null until it answered (or when it offers none). */
  #hostTools: unknown[] | null = null;
  #hostToolsAnswer: ((tools: unknown[]) => void) | null = null;
  /** Steered input on its way to the record (its images read and resized first). */
  readonly #steers: SteerQueue;
  /** The harness's notes the turn adds: results of the user's commands, an interrupt's note. */
  protected readonly notes = new TurnNotes();

  // What every turn does first, before its own start lines: the thread's first turn queues
  // the history's session_meta, then any lines owed from before.
  constructor(thread: ThreadState, opening: TurnOpening) {
    this.thread = thread;
    this.turnId = opening.turnId;
    this.userText = opening.userText;
    this.interrupted = opening.interrupted;
    this.#movesReadState = opening.movesReadState;
    if (opening.interrupted) this.#abort.abort();
    this.startedAtMs = opening.startedAtMs ?? thread.clock.now();
    // A failed append stops the appender; between turns a gap is harmless (the owed line
    // closes the failed turn), so the store gets another chance with this turn.
    thread.appender?.reset();
    thread.backend.projection.nextTurn();
    // Appends are chained inside the appender, so the turn does not wait for the store
    // between lines; it waits once, before reporting the turn's end.
    this.writes = new TurnWrites(thread.appender);
    this.#wroteMeta = !thread.materialized && thread.appender !== null;
    if (this.#wroteMeta) this.writes.add('meta', thread.format.sessionMeta(thread.sessionMeta(opening.settings), this.startedAtMs));
    this.#owed = thread.owed.splice(0);
    this.writes.add('owed', this.#owed);
    this.exchange = [{ role: 'user', text: opening.userText }];
    this.#toolCalls = new ToolCalls(thread, this.turnId, this.writes, this.exchange);
    this.#steers = new SteerQueue((command, content) => this.#recordSteer(command, content), { threadId: thread.threadId, turnId: this.turnId });
  }

  /** Runs the turn to its reported end. */
  abstract run(): Promise<void>;

  /** What an outside wait passes on, so that what it waits for stops with the turn. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The client interrupts the turn; true when that cut short what it was waiting for. */
  interrupt(): boolean {
    this.interrupted = true;
    const cutShort = this.#waiting !== null;
    // Between two waits too: the next one (a sampling, a tool call) ends before it starts.
    this.#abort.abort();
    return cutShort;
  }

  /** The writer lost the thread: whatever the turn waits for stops; it ends as that makes it. */
  stop(): void {
    if (this.#waiting !== null) this.#abort.abort();
  }

  /**
   * Input joining the turn at once: recorded, and while the model is answering the sampling
   * restarts with it, as the reference does.
   */
  steer(command: SteerCommand): void {
    this.queueSteer(command);
    if (this.#waiting !== 'model') return;
    this.#restart = true;
    this.#abort.abort();
  }

  /**
   * Waits for an answer from outside the turn (a client's tool result, an approval) without
   * holding the worker: settles as `pending` does, or as 'interrupted' once the turn is
   * interrupted or stopped, whichever comes first.
   */
  async awaitOutside<T>(pending: Promise<T>): Promise<T | 'interrupted'> {
    const signal = this.#abort.signal;
    if (signal.aborted) return 'interrupted';
    let onAbort = (): void => undefined;
    const aborted = new Promise<'interrupted'>((resolve) => {
      onAbort = () => resolve('interrupted');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    this.#waiting = 'outside';
    try {
      return await Promise.race([pending, aborted]);
    } finally {
      this.#waiting = null;
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Asks the host for the turn's tools (listing them may start the thread's MCP servers) and waits,
   * without holding the worker; an interrupt ends the wait with none.
   */
  protected async askHostTools(): Promise<void> {
    const { threadId, emit } = this.thread;
    const answered = new Promise<unknown[]>((resolve) => (this.#hostToolsAnswer = resolve));
    emit({ type: 'hostToolsAsked', threadId, turnId: this.turnId });
    const tools = await this.awaitOutside(answered);
    this.#hostToolsAnswer = null;
    this.#hostTools = tools === 'interrupted' ? null : tools;
  }

  /** The host's tools, for the turn that asked; sent unasked (a reload), those of its next sampling. */
  answerHostTools(tools: unknown[]): boolean {
    const resolve = this.#hostToolsAnswer;
    this.#hostToolsAnswer = null;
    if (resolve === null) this.#hostTools = tools;
    else resolve(tools);
    return true;
  }

  /** The host's answer to one of this turn's tool calls; false when no call waits for it. */
  answerTool(answer: ToolAnswer): boolean {
    return this.#toolCalls.answer(answer);
  }

  /**
   * Runs the tool calls of one sampling: each is recorded and handed to the host at once (the
   * calls of one reply run together), each answer is recorded as it comes, and the outputs join
   * the conversation after the calls, in the model's order. Waiting holds no worker: the turn
   * is suspended until the answers come or it is interrupted. Input steered in meanwhile is
   * recorded after the outputs.
   */
  protected async callTools(calls: readonly Record<string, unknown>[]): Promise<'answered' | 'interrupted'> {
    this.#steers.hold();
    try {
      return await this.#toolCalls.run(calls, (all) => this.awaitOutside(all));
    } finally {
      this.#steers.release();
    }
  }

  /**
   * A user's command that joined the turn ended: its item is recorded now, its result is given
   * to the model at the next sampling (one more when the model had answered), as the reference's.
   */
  noteUserShell(item: CommandExecutionItem, text: string): void {
    const { threadId, emit, clock, format } = this.thread;
    const at = this.thread.queueAnchored(this.writes, 'item', format.standaloneItem(item, this.turnId, clock.now()));
    emit({ type: 'toolItemRecorded', threadId, turnId: this.turnId, itemId: item.id, ordinal: at.item });
    this.notes.userShell(text);
  }

  /** The results waiting for the model join the turn's exchange (and the history) before a sampling. */
  protected takeNotes(): void {
    const { lines, messages } = this.notes.take(this.turnId, this.thread.clock.now());
    this.writes.add('item', lines);
    this.exchange.push(...messages);
  }

  /** A sampling's usage: recorded after the outputs of the tools it called, as the reference orders them. */
  protected recordUsage(last: ModelUsage | null): void {
    if (last === null) return;
    const { threadId, emit, clock, format } = this.thread;
    this.thread.totalUsage = addUsage(this.thread.totalUsage, last);
    const usage = { total: this.thread.totalUsage, last, modelContextWindow: DEFAULT_MODEL_CONTEXT_WINDOW };
    this.writes.add('item', format.tokenCount(usage, this.turnId, clock.now()));
    emit({ type: 'tokenUsage', threadId, turnId: this.turnId, usage });
  }

  /** Records steered input, after any still being prepared (steer-queue.ts). */
  protected queueSteer(command: SteerCommand): void {
    this.#steers.add(command);
  }

  /** Steered input is still being prepared. */
  protected get steering(): boolean {
    return this.#steers.preparing;
  }

  /** Waits, as an outside wait an interrupt cuts short, until the steered input is recorded. */
  protected async steersRecorded(): Promise<'recorded' | 'interrupted'> {
    while (this.#steers.preparing) if ((await this.awaitOutside(this.#steers.settled)) === 'interrupted') return 'interrupted';
    return 'recorded';
  }

  /** Waits until the steered input is recorded, whatever happened to the turn (each image has its deadline). */
  protected async allSteersRecorded(): Promise<void> {
    while (this.#steers.preparing) await this.#steers.settled;
  }

  #recordSteer(command: SteerCommand, content: UserContent): void {
    const { threadId, clock, format, emit } = this.thread;
    const now = clock.now();
    const item: UserMessageItem = { type: 'userMessage', id: command.userItemId, clientId: command.clientId, content: command.input, startedAtMs: now, completedAtMs: now };
    const at = this.thread.queueAnchored(this.writes, 'item', format.userInput(item, this.turnId, now, content));
    this.exchange.push(conversationMessageOf(command.input, content));
    emit({ type: 'userItem', threadId, turnId: this.turnId, item, ordinal: at.item });
  }

  /** `announced`: the host already told its clients the turn started (a user's command); only its place is news. */
  protected announceStart(ordinal: number | null, announced = false): void {
    const { threadId, emit } = this.thread;
    if (announced) emit({ type: 'turnRecorded', threadId, turnId: this.turnId, ordinal });
    else emit({ type: 'turnStarted', threadId, turnId: this.turnId, startedAtMs: this.startedAtMs, ordinal });
    if (this.#wroteMeta) {
      this.thread.materialized = true;
      emit({ type: 'materialized', threadId, path: this.thread.backend.path });
    }
  }

  /** Input steered in cut the last sampling short: true, with a fresh abort, when it is to be sampled again. */
  protected takeRestart(): boolean {
    if (!this.#restart || this.interrupted) return false;
    this.#restart = false;
    this.renewAbort();
    return true;
  }

  protected renewAbort(): void {
    this.#abort = new AbortController();
    if (this.interrupted) this.#abort.abort();
  }

  // Streams the reply, telling the host each step and queueing what the history keeps. A
  // compaction's sampling (`agentItems` false) keeps its reply to itself: the summary is no
  // agent message.
  protected async sample(settings: ThreadSettings, outputSchema: unknown, reply: Reply, agentItems: boolean): Promise<TurnOutcome> {
    const { threadId, emit, clock, format } = this.thread;
    const { turnId, writes } = this;
    const abort = this.#abort;
    this.#waiting = 'model';
    // The turn's own messages so far follow the thread's; the last user message is answered,
    // with the tool calls and outputs that came after it.
    const history = [...this.thread.conversation, ...this.exchange];
    let last = history.length - 1;
    while (last > 0 && history[last]!.role !== 'user') last -= 1;
    const user = history[last]!;
    const request = {
      model: settings.model,
      baseInstructions: settings.baseInstructions,
      developerInstructions: settings.developerInstructions,
      history: history.slice(0, last),
      userText: user.text,
      ...(user.role === 'user' && user.parts !== undefined ? { userParts: user.parts } : {}),
      followUps: history.slice(last + 1),
      tools: this.#hostTools ?? settings.tools,
      effort: settings.effort,
      outputSchema,
      threadId,
      turnId,
      signal: abort.signal,
      onRetry: (attempt: number, max: number, reason: string) =>
        emit({ type: 'retrying', threadId, turnId, message: `Reconnecting... ${attempt}/${max} (${reason})` }),
    };
    try {
      await streamReply(this.thread.model, request, this.startedAtMs, clock, reply, {
        itemStarted: (item) => agentItems && emit({ type: 'agentItemStarted', threadId, turnId, item }),
        delta: (itemId, delta) => agentItems && emit({ type: 'agentDelta', threadId, turnId, itemId, delta }),
        itemCompleted: (item) => {
          if (!agentItems) return;
          const at = this.thread.queueAnchored(writes, 'item', format.agentMessage(item, turnId, item.completedAtMs!));
          emit({ type: 'agentItemCompleted', threadId, turnId, item, ordinal: at.item });
        },
        toolCall: (item) => reply.toolCalls.push(item),
        usage: (last) => {
          reply.usage = last;
        },
      });
      return { status: 'completed', error: null };
    } catch (error) {
      if (error instanceof ModelAbortedError || abort.signal.aborted) return { status: 'interrupted', error: null };
      return { status: 'failed', error: turnErrorOf(error) };
    } finally {
      this.#waiting = null;
    }
  }

  // Records the turn's end, waits for every line of it to reach the store, then reports it.
  // `end` is how the history closes the turn when its lines land.
  protected async end(end: TurnEnd, sampled: TurnOutcome): Promise<void> {
    const { threadId, clock, format, emit } = this.thread;
    const { turnId, writes } = this;
    let outcome = sampled;
    const completedAtMs = clock.now();
    const timing = timingOf(turnId, this.startedAtMs, completedAtMs);
    // The read receipt the host publishes for a completed or failed turn goes with the turn's
    // last lines, on a store that keeps it: one statement, not two.
    const receipt = this.#movesReadState && end.status !== 'interrupted' ? this.thread.backend.receipt(turnId) : undefined;
    const closing = this.notes.closing(end, turnId, completedAtMs);
    this.thread.conversation = [...this.thread.conversation, ...closing.messages];
    writes.add('end', [...closing.lines, ...format.turnEnd(timing, end, completedAtMs)], receipt);
    const { failure, landed } = await writes.settle();
    if (failure !== null) {
      if (outcome.status === 'completed') outcome = hostFailure(`failed to record the turn in the thread history: ${failure.message}`);
      // What landed is a prefix of what was queued. Without session_meta the history is no
      // rollout yet, so the next turn writes it first; lines owed from before stay owed; a
      // turn whose start landed is owed its end; one whose start did not is not in the history.
      if (this.#wroteMeta && !landed.has('meta')) this.thread.materialized = false;
      if (this.#owed.length > 0 && !landed.has('owed')) this.thread.owed = this.#owed;
      else if (landed.has('start')) this.thread.owed = format.turnEnd(timing, endOf(outcome, null, null), completedAtMs);
    }
    this.reported = true;
    // Every line of the turn is with the store: the actor may go quiet before the host hears
    // of the end (thread-actor.ts). Nothing below writes.
    this.thread.turnWritten();
    emit({
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

  /**
   * The safety net: the turn threw past its own handling (a bug). Reported failed so the
   * client is not left waiting, and closed in the history the same way if its start is there.
   */
  async abandon(error: unknown): Promise<void> {
    if (this.reported) return;
    this.reported = true;
    const { threadId, clock, format, emit } = this.thread;
    const { turnId } = this;
    const completedAtMs = clock.now();
    const failed = hostFailure(`the thread actor failed during the turn: ${error instanceof Error ? error.message : String(error)}`);
    workerLog('error', failed.error.message, { threadId, turnId, stack: error instanceof Error ? error.stack : undefined });
    const timing = timingOf(turnId, this.startedAtMs, completedAtMs);
    let persisted = false;
    const { failure, landed } = await this.writes.settle();
    if (failure === null && landed.has('start')) {
      const end = new TurnWrites(this.thread.appender);
      // Failed: the host publishes its read state, stored with these lines as in end().
      end.add('end', format.turnEnd(timing, endOf(failed, null, null), completedAtMs), this.#movesReadState ? this.thread.backend.receipt(turnId) : undefined);
      persisted = (await end.settle()).failure === null;
    }
    emit({ type: 'turnEnded', threadId, turnId, ...failed, completedAtMs, durationMs: timing.durationMs, persisted });
  }
}
