// One loaded thread's actor, living in a pool worker. It owns the thread's rollout file and
// its conversation with the model; the main thread owns everything clients see. Commands
// run one at a time through the actor's mailbox, so turns of one thread never interleave
// and close() waits for the turn ahead of it.
import type { ActorEvent, ActorInit, ActorResumeState, ThreadSettings, TurnCommand } from '../actor-messages.js';
import { RolloutAppender } from '../history/rollout-appender.js';
import * as lines from '../history/rollout-lines.js';
import { readRollout } from '../history/rollout-reader.js';
import { Mailbox } from '../mailbox.js';
import type { ModelClient } from '../model/model-client.js';
import { ModelAbortedError } from '../model/model-client.js';
import type { AgentMessageItem, ConversationMessage, ModelUsage, TurnError, UserMessageItem } from '../thread-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../thread-types.js';
import { blockSynchronously, type Faults } from './faults.js';
import { createModelClient } from './model-client-factory.js';
import { snakeCaseInfo, turnErrorOf } from './turn-error.js';

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

  constructor(init: ActorInit, emit: Emit, faults: Faults) {
    this.#init = init;
    this.#emit = emit;
    this.#faults = faults;
    this.#model = createModelClient(init.provider, init.userAgent, init.session.originator);
    this.#appender = init.rolloutPath === null ? null : new RolloutAppender(init.rolloutPath);
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
    void this.#mailbox.post(() => this.#runTurn(command));
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
    // Appends are chained inside the appender, so the turn does not wait for the disk
    // between lines; it waits once, before reporting the turn's end.
    const writes: Promise<void>[] = [];
    const write = (batch: string[]) => {
      if (this.#appender) writes.push(this.#appender.append(batch));
    };
    if (!this.#materialized && this.#appender) {
      write([lines.sessionMeta(this.#sessionMeta(settings), startedAtMs)]);
      this.#materialized = true;
      this.#emit({ type: 'materialized', threadId, path: this.#init.rolloutPath! });
    }
    write([
      lines.taskStarted(turnId, Math.floor(startedAtMs / 1000), startedAtMs),
      lines.turnContext(this.#turnContext(turnId, settings), startedAtMs),
      ...lines.userMessage(userItem, startedAtMs, turnId),
    ]);
    this.#emit({ type: 'userItem', threadId, turnId, item: userItem });

    let agentItem: AgentMessageItem | null = null;
    let firstTokenMs: number | null = null;
    let outcome: { status: 'completed' | 'interrupted' | 'failed'; error: TurnError | null };
    try {
      if (this.#faults.crashOnText !== null && userText === this.#faults.crashOnText) {
        // Die mid-turn, after the user message reached the rollout, as a crash would.
        await Promise.all(writes);
        process.exit(70);
      }
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
          write(lines.agentMessage(agentItem, agentItem.completedAtMs, turnId));
          this.#emit({ type: 'agentItemCompleted', threadId, turnId, item: { ...agentItem } });
        } else {
          this.#totalUsage = addUsage(this.#totalUsage, event.usage);
          const usage = { total: this.#totalUsage, last: event.usage, modelContextWindow: DEFAULT_MODEL_CONTEXT_WINDOW };
          write([lines.tokenCount(usage, Date.now())]);
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
      write([lines.taskComplete({ ...timing, lastAgentMessage: agentItem?.text ?? null, timeToFirstTokenMs: firstTokenMs }, completedAtMs)]);
      this.#history = [...this.#history, { role: 'user', text: userText }];
      if (agentItem) this.#history.push({ role: 'assistant', text: agentItem.text });
    } else if (outcome.status === 'interrupted') {
      write([lines.turnAborted({ ...timing, reason: 'interrupted' }, completedAtMs)]);
      this.#history = [...this.#history, { role: 'user', text: userText }];
    } else {
      write(
        lines.turnFailed(
          { ...timing, lastAgentMessage: null, message: outcome.error!.message, codexErrorInfo: snakeCaseInfo(outcome.error!.codexErrorInfo) },
          completedAtMs,
        ),
      );
    }
    const persisted = await Promise.all(writes).then(
      () => true,
      () => false,
    );
    if (!persisted && outcome.status === 'completed') {
      outcome = {
        status: 'failed',
        error: { message: 'failed to record the turn in the thread history', codexErrorInfo: 'other', additionalDetails: null, misalignment: null },
      };
    }
    this.#emit({
      type: 'turnEnded',
      threadId,
      turnId,
      status: outcome.status,
      error: outcome.error,
      completedAtMs,
      durationMs: timing.durationMs,
      persisted,
    });
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
