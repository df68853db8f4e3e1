// One loaded thread's actor, living in a pool worker. It owns the thread's rollout file and
// its conversation with the model; the main thread owns everything clients see. Commands
// run one at a time through the actor's mailbox, so turns of one thread never interleave
// and close() waits for the turn ahead of it.
import type { ActorEvent, ActorInit, ActorResumeState, ThreadSettings, TurnCommand } from '../shared/actor-messages.js';
import { RolloutAppender } from './history/rollout-appender.js';
import * as lines from './history/rollout-lines.js';
import { readRollout } from '../shared/history/rollout-reader.js';
import { Mailbox } from '../shared/mailbox.js';
import type { ModelClient } from './model/model-client.js';
import { ModelAbortedError } from './model/model-client.js';
import type { AgentMessageItem, ConversationMessage, ModelUsage, TurnError, UserMessageItem } from '../shared/wire-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../shared/wire-types.js';
import { blockSynchronously, injectTurnFault, type Faults } from './faults.js';
import { createModelClient } from './model-client-factory.js';
import { snakeCaseInfo, turnErrorOf } from './turn-error.js';
import { TurnWrites } from './turn-writes.js';
import { workerLog } from './worker-log.js';

type Emit = (event: ActorEvent) => void;

const ZERO_USAGE: ModelUsage = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0, totalTokens: 0 };

export class ThreadActor {
  readonly #init: ActorInit;
  readonly #emit: Emit;
  readonly #faults: Faults;
  readonly #mailbox = new Mailbox();
  readonly #model: ModelClient;
  readonly #appender: RolloutAppender | null;
  /** What the model sees as history: every completed exchange so far. */
  #history: ConversationMessage[] = [];
  #materialized: boolean;
  #totalUsage: ModelUsage = ZERO_USAGE;
  #running: { turnId: string; abort: AbortController } | null = null;
  /** Queued turns interrupted before they started. */
  readonly #interruptedEarly = new Set<string>();
  /**
   * The terminal line of a turn whose start reached the rollout but whose end did not (the
   * disk failed): written ahead of the next turn's lines, so the file tells what the client
   * was told instead of leaving the turn open.
   */
  #owed: string[] = [];
  /** The turn in progress, for the safety net in startTurn. */
  #current: { turnId: string; startedAtMs: number; writes: TurnWrites; reported: boolean } | null = null;

  constructor(init: ActorInit, emit: Emit, faults: Faults) {
    this.#init = init;
    this.#emit = emit;
    this.#faults = faults;
    this.#model = createModelClient(init.provider, init.userAgent, init.session.originator);
    this.#appender =
      init.rolloutPath === null
        ? null
        : new RolloutAppender(init.rolloutPath, {
            faults: faults.disk,
            onNotice: (message) => emit({ type: 'warning', threadId: init.threadId, message }),
          });
    this.#materialized = init.resume;
  }

  /** For a cold resume, replays the rollout; otherwise nothing to read. */
  async load(): Promise<ActorResumeState | null> {
    if (!this.#init.resume || this.#init.rolloutPath === null) return null;
    const parsed = await readRollout(this.#init.rolloutPath);
    this.#history = parsed.messages;
    if (parsed.lastTokenUsage) this.#totalUsage = fromBreakdown(parsed.lastTokenUsage.total);
    return {
      turns: parsed.turns,
      preview: parsed.preview,
      updatedAtMs: parsed.updatedAtMs,
      createdAtMs: parsed.meta?.createdAtMs ?? null,
      cwd: parsed.meta?.cwd ?? null,
      modelProvider: parsed.meta?.modelProvider ?? null,
      model: parsed.meta?.model ?? null,
      lastTokenUsage: parsed.lastTokenUsage
        ? {
            total: fromBreakdown(parsed.lastTokenUsage.total),
            last: fromBreakdown(parsed.lastTokenUsage.last),
            modelContextWindow: parsed.lastTokenUsage.modelContextWindow,
          }
        : null,
    };
  }

  /** Queues a turn; it starts once every earlier command has finished. */
  startTurn(command: TurnCommand): void {
    // A throw the turn did not handle (a bug) must end that turn, not kill the worker and
    // every other thread on it through an unhandled rejection.
    void this.#mailbox.post(() => this.#runTurn(command).catch((error: unknown) => this.#abandonTurn(command.turnId, error)));
  }

  /** Aborts the running turn, or marks a queued one so it ends as soon as it starts. */
  interrupt(turnId: string): 'interrupting' | 'notRunning' {
    if (this.#running?.turnId === turnId) {
      this.#running.abort.abort();
      return 'interrupting';
    }
    this.#interruptedEarly.add(turnId);
    return 'notRunning';
  }

  /** Flushes and closes the rollout after the commands ahead of it. */
  close(): Promise<void> {
    return this.#mailbox.post(async () => {
      if (this.#faults.blockOnCloseMs > 0) blockSynchronously(this.#faults.blockOnCloseMs);
      if (this.#appender && this.#owed.length > 0 && this.#appender.reset() === 'ready') {
        // Last chance to close a turn the disk failed, before a later resume reads it as interrupted.
        await this.#appender.append(this.#owed.splice(0)).catch(() => undefined);
      }
      await this.#appender?.close();
    });
  }

  async #runTurn(command: TurnCommand): Promise<void> {
    const { threadId } = this.#init;
    const { turnId, settings } = command;
    const abort = new AbortController();
    if (this.#interruptedEarly.delete(turnId)) abort.abort();
    this.#running = { turnId, abort };
    const startedAtMs = Date.now();
    // A failed append stops the appender; between turns a gap is harmless (the owed line
    // closes the failed turn), so the disk gets another chance with this turn.
    this.#appender?.reset();
    // Appends are chained inside the appender, so the turn does not wait for the disk
    // between lines; it waits once, before reporting the turn's end.
    const writes = new TurnWrites(this.#appender);
    this.#current = { turnId, startedAtMs, writes, reported: false };
    this.#emit({ type: 'turnStarted', threadId, turnId, startedAtMs });
    const userText = command.input.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    const userItem: UserMessageItem = {
      type: 'userMessage',
      id: command.userItemId,
      clientId: command.clientId,
      content: command.input,
      startedAtMs,
      completedAtMs: startedAtMs,
    };
    const needsMeta = !this.#materialized && this.#appender !== null;
    if (needsMeta) {
      writes.add('meta', [lines.sessionMeta(this.#sessionMeta(settings), startedAtMs)]);
      this.#materialized = true;
      this.#emit({ type: 'materialized', threadId, path: this.#init.rolloutPath! });
    }
    const owed = this.#owed.splice(0);
    writes.add('owed', owed);
    writes.add('start', [
      lines.taskStarted(turnId, Math.floor(startedAtMs / 1000), startedAtMs),
      lines.turnContext(this.#turnContext(turnId, settings), startedAtMs),
      ...lines.userMessage(userItem, startedAtMs, turnId),
    ]);
    this.#emit({ type: 'userItem', threadId, turnId, item: userItem });

    const fault = this.#faults.turnFaults.get(userText);
    if (fault !== undefined) {
      // Strike mid-turn, after the user message reached the rollout, as a real fault would.
      await writes.settle();
      injectTurnFault(fault);
    }

    let agentItem: AgentMessageItem | null = null;
    let firstTokenMs: number | null = null;
    let outcome: { status: 'completed' | 'interrupted' | 'failed'; error: TurnError | null };
    try {
      const stream = this.#model.stream({
        model: settings.model,
        baseInstructions: settings.baseInstructions,
        developerInstructions: settings.developerInstructions,
        history: this.#history,
        userText,
        effort: settings.effort,
        outputSchema: command.outputSchema ?? null,
        threadId,
        turnId,
        signal: abort.signal,
        onRetry: (attempt, max, reason) =>
          this.#emit({ type: 'retrying', threadId, turnId, message: `Reconnecting... ${attempt}/${max} (${reason})` }),
      });
      for await (const event of stream) {
        if (event.type === 'messageStarted' || event.type === 'textDelta') {
          if (agentItem === null) {
            agentItem = newAgentItem(event.itemId ?? 'msg', '');
            this.#emit({ type: 'agentItemStarted', threadId, turnId, item: { ...agentItem } });
          }
          if (event.type === 'textDelta') {
            firstTokenMs ??= Date.now() - startedAtMs;
            agentItem.text += event.delta;
            this.#emit({ type: 'agentDelta', threadId, turnId, itemId: agentItem.id, delta: event.delta });
          }
        } else if (event.type === 'messageDone') {
          firstTokenMs ??= Date.now() - startedAtMs;
          if (agentItem === null) {
            // No output_item.added: like the reference, item/started already carries the text.
            agentItem = newAgentItem(event.itemId, event.text);
            this.#emit({ type: 'agentItemStarted', threadId, turnId, item: { ...agentItem } });
          }
          agentItem.id = event.itemId;
          agentItem.text = event.text;
          agentItem.completedAtMs = Date.now();
          writes.add('item', lines.agentMessage(agentItem, agentItem.completedAtMs, turnId));
          this.#emit({ type: 'agentItemCompleted', threadId, turnId, item: { ...agentItem } });
        } else {
          this.#totalUsage = addUsage(this.#totalUsage, event.usage);
          const usage = { total: this.#totalUsage, last: event.usage, modelContextWindow: DEFAULT_MODEL_CONTEXT_WINDOW };
          writes.add('item', [lines.tokenCount(usage, Date.now())]);
          this.#emit({ type: 'tokenUsage', threadId, turnId, usage });
        }
      }
      outcome = { status: 'completed', error: null };
    } catch (error) {
      if (error instanceof ModelAbortedError || abort.signal.aborted) {
        outcome = { status: 'interrupted', error: null };
      } else {
        outcome = { status: 'failed', error: turnErrorOf(error) };
      }
    } finally {
      this.#running = null;
    }

    const completedAtMs = Date.now();
    const timing = {
      turnId,
      startedAtSec: Math.floor(startedAtMs / 1000),
      completedAtSec: Math.floor(completedAtMs / 1000),
      durationMs: completedAtMs - startedAtMs,
    };
    if (outcome.status === 'completed') {
      writes.add('end', [lines.taskComplete({ ...timing, lastAgentMessage: agentItem?.text ?? null, timeToFirstTokenMs: firstTokenMs }, completedAtMs)]);
    } else {
      writes.add('end', endLines(timing, outcome, completedAtMs));
    }
    // The model's next view is what a resume would rebuild from the rollout: the user message
    // of every turn, and the assistant message whenever one was completed, whatever the outcome.
    this.#history = [...this.#history, { role: 'user', text: userText }];
    if (agentItem?.completedAtMs != null) this.#history.push({ role: 'assistant', text: agentItem.text });
    const { failure, landed } = await writes.settle();
    if (failure !== null) {
      if (outcome.status === 'completed') {
        const message = `failed to record the turn in the thread history: ${failure.message}`;
        outcome = { status: 'failed', error: { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null } };
      }
      // What landed is a prefix of what was queued. Without session_meta the file is no
      // rollout yet, so the next turn writes it first; lines owed from before stay owed; a
      // turn whose start landed is owed its end; one whose start did not is not in the file.
      if (needsMeta && !landed.has('meta')) this.#materialized = false;
      if (owed.length > 0 && !landed.has('owed')) this.#owed = owed;
      else if (landed.has('start')) this.#owed = endLines(timing, outcome, completedAtMs);
    }
    this.#current.reported = true;
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
  async #abandonTurn(turnId: string, error: unknown): Promise<void> {
    this.#running = null;
    const current = this.#current;
    if (current === null || current.turnId !== turnId || current.reported) return;
    current.reported = true;
    const completedAtMs = Date.now();
    const message = `the thread actor failed during the turn: ${error instanceof Error ? error.message : String(error)}`;
    workerLog('error', message, { threadId: this.#init.threadId, turnId, stack: error instanceof Error ? error.stack : undefined });
    const failed = { status: 'failed' as const, error: { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null } };
    const timing = {
      turnId,
      startedAtSec: Math.floor(current.startedAtMs / 1000),
      completedAtSec: Math.floor(completedAtMs / 1000),
      durationMs: completedAtMs - current.startedAtMs,
    };
    let persisted = false;
    const { failure, landed } = await current.writes.settle();
    if (failure === null && landed.has('start')) {
      const end = new TurnWrites(this.#appender);
      end.add('end', endLines(timing, failed, completedAtMs));
      persisted = (await end.settle()).failure === null;
    }
    this.#emit({ type: 'turnEnded', threadId: this.#init.threadId, turnId, ...failed, completedAtMs, durationMs: timing.durationMs, persisted });
  }

  #sessionMeta(settings: ThreadSettings): lines.SessionMetaInput {
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

  #turnContext(turnId: string, settings: ThreadSettings): lines.TurnContextInput {
    return {
      turnId,
      cwd: settings.cwd,
      approvalPolicy: typeof settings.approvalPolicy === 'string' ? settings.approvalPolicy : 'on-request',
      approvalsReviewer: settings.approvalsReviewer,
      sandboxMode: settings.sandboxMode as lines.TurnContextInput['sandboxMode'],
      model: settings.model,
      effort: settings.effort,
      developerInstructions: settings.developerInstructions,
    };
  }
}

/** The line that closes an interrupted or failed turn as its client was told. */
function endLines(
  timing: { turnId: string; startedAtSec: number; completedAtSec: number; durationMs: number },
  outcome: { status: 'completed' | 'interrupted' | 'failed'; error: TurnError | null },
  nowMs: number,
): string[] {
  if (outcome.status === 'interrupted') return [lines.turnAborted({ ...timing, reason: 'interrupted' }, nowMs)];
  const error = outcome.error!;
  return lines.turnFailed({ ...timing, lastAgentMessage: null, message: error.message, codexErrorInfo: snakeCaseInfo(error.codexErrorInfo) }, nowMs);
}

function newAgentItem(id: string, text: string): AgentMessageItem {
  const now = Date.now();
  return {
    type: 'agentMessage',
    moderation: null,
    id,
    text,
    phase: null,
    memoryCitation: null,
    delivery: null,
    questions: null,
    startedAtMs: now,
    completedAtMs: null,
  };
}

function addUsage(a: ModelUsage, b: ModelUsage): ModelUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningOutputTokens: a.reasoningOutputTokens + b.reasoningOutputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

function fromBreakdown(b: { inputTokens: number; cachedInputTokens: number; outputTokens: number; reasoningOutputTokens: number; totalTokens: number }): ModelUsage {
  return {
    inputTokens: b.inputTokens,
    cachedInputTokens: b.cachedInputTokens,
    outputTokens: b.outputTokens,
    reasoningOutputTokens: b.reasoningOutputTokens,
    totalTokens: b.totalTokens,
  };
}
