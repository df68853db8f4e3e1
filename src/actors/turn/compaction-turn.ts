// A compaction, as the reference runs thread/compact/start: a turn with no user message whose
// one item is the compaction; the model is asked for a summary (COMPACTION_PROMPT), and its
// answer replaces the conversation (compaction.ts). One that fails or is interrupted leaves
// the conversation as it was.
import type { CompactCommand } from '../../common/actor-messages.js';
import { COMPACTION_PROMPT, compactedConversation, summaryMessage } from '../../common/rollout/compaction.js';
import type { ContextCompactionItem } from '../../common/wire-types.js';
import { compactionLines } from '../rollout-writer/compaction-lines.js';
import { taskStarted } from '../rollout-writer/rollout-lines.js';
import type { Reply } from './reply-stream.js';
import { RunningTurn } from './running-turn.js';
import type { ThreadState } from './thread-state.js';
import { endOf } from './turn-outcome.js';

export class CompactionTurn extends RunningTurn {
  readonly #command: CompactCommand;

  constructor(thread: ThreadState, command: CompactCommand, interrupted: boolean) {
    // A compaction's end moves no read state (the host publishes none for it).
    super(thread, { turnId: command.turnId, settings: command.settings, userText: COMPACTION_PROMPT, interrupted, movesReadState: false });
    this.#command = command;
  }

  async run(): Promise<void> {
    const { threadId, clock, emit } = this.thread;
    const { turnId } = this;
    const command = this.#command;
    const start = { lines: [taskStarted(turnId, Math.floor(this.startedAtMs / 1000), this.startedAtMs)], turnLine: 0 };
    this.announceStart(this.thread.queueAnchored(this.writes, 'start', start).turn);
    const item: ContextCompactionItem = { type: 'contextCompaction', id: command.itemId, startedAtMs: clock.now(), completedAtMs: null };
    emit({ type: 'compactionStarted', threadId, turnId, item: { ...item } });
    const reply: Reply = { agentItem: null, firstTokenMs: null, toolCalls: [], usage: null };
    // A summary is asked for with no tools: there is nothing for the model to call.
    const outcome = await this.sample({ ...command.settings, tools: [] }, null, reply, false);
    this.recordUsage(reply.usage);
    if (outcome.status === 'completed') {
      const summaryText = reply.agentItem?.text ?? '';
      const conversation = compactedConversation(this.thread.conversation, summaryMessage(summaryText));
      item.completedAtMs = clock.now();
      const summaryItemId = reply.agentItem?.id ?? command.itemId;
      const lines = compactionLines({ threadId, turnId, summaryItemId, summaryText, conversation, item }, item.completedAtMs);
      const at = this.thread.queueAnchored(this.writes, 'item', lines);
      this.thread.conversation = conversation;
      emit({ type: 'compactionCompleted', threadId, turnId, item, ordinal: at.item });
    }
    await this.end(endOf(outcome, null, null), outcome);
  }
}
