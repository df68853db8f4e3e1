// A user's turn, top to bottom: open it (events, the history lines that start it), sample the
// model until its last input is answered, close it (the lines that end it), wait for the store,
// then report its end.
import type { SteerCommand, ThreadSettings, TurnCommand } from '../../common/actor-messages.js';
import type { UserMessageItem } from '../../common/wire-types.js';
import { injectTurnFault, type Faults } from '../faults.js';
import type { TurnContextInput } from '../rollout-writer/rollout-format.js';
import type { Reply } from './reply-stream.js';
import { carriesImages, conversationMessageOf, textContentOf, userContentOf, type UserContent } from './user-content.js';
import { RunningTurn, textOf } from './running-turn.js';
import type { ThreadState } from './thread-state.js';
import { endOf, type TurnOutcome } from './turn-outcome.js';

export class UserTurn extends RunningTurn {
  readonly #command: TurnCommand;
  readonly #faults: Faults;
  /** The input steered into the turn before it began (the actor's queue for it, emptied). */
  readonly #takeSteered: () => SteerCommand[];

  constructor(thread: ThreadState, command: TurnCommand, interrupted: boolean, faults: Faults, takeSteered: () => SteerCommand[]) {
    super(thread, { turnId: command.turnId, settings: command.settings, userText: textOf(command.input), interrupted, movesReadState: true });
    this.#command = command;
    this.#faults = faults;
    this.#takeSteered = takeSteered;
  }

  async run(): Promise<void> {
    // Local images are read before the turn's first line: the history records the message as
    // the model is given it.
    const { input } = this.#command;
    const content = carriesImages(input) ? await userContentOf(input) : textContentOf(input);
    this.exchange[0] = conversationMessageOf(input, content);
    this.#begin(content);
    const fault = this.#faults.turnFaults.get(this.userText);
    if (fault !== undefined) {
      // Strike mid-turn, after the user message reached the history, as a real fault would.
      await this.writes.settle();
      injectTurnFault(fault);
    }
    const { settings, outputSchema } = this.#command;
    if (settings.hostTools && !this.interrupted) await this.askHostTools();
    let reply: Reply;
    let outcome: TurnOutcome;
    let lastAgentText: string | null = null;
    let firstTokenMs: number | null = null;
    // Sampled again while input steered in is unanswered: cut short by it (the partial reply
    // is dropped), or come after the model answered; and again with the outputs of the tools
    // the model called, once the host answered them (awaited without holding the worker); and
    // again with the results of the user's commands that joined the turn meanwhile.
    do {
      reply = { agentItem: null, firstTokenMs: null, toolCalls: [], usage: null };
      // Steered input whose images are still being prepared is sampled with them.
      if ((await this.steersRecorded()) === 'interrupted') {
        outcome = { status: 'interrupted', error: null };
        break;
      }
      this.takeNotes();
      const asked = this.exchange.length;
      outcome = await this.sample(settings, outputSchema ?? null, reply, true);
      firstTokenMs ??= reply.firstTokenMs;
      if (this.takeRestart()) continue;
      // The model's next view is what a resume would rebuild from the history: the user messages
      // of every turn, and the assistant message whenever one was completed, whatever the outcome.
      if (reply.agentItem?.completedAtMs != null) {
        this.exchange.splice(asked, 0, { role: 'assistant', text: reply.agentItem.text });
        lastAgentText = reply.agentItem.text;
      }
      if (outcome.status === 'completed' && reply.toolCalls.length > 0) {
        const called = await this.callTools(reply.toolCalls);
        this.recordUsage(reply.usage);
        if (called === 'interrupted') {
          outcome = { status: 'interrupted', error: null };
          break;
        }
        this.renewAbort();
        continue;
      }
      this.recordUsage(reply.usage);
      if (outcome.status !== 'completed' || (this.exchange.at(-1)!.role !== 'user' && !this.notes.pending && !this.steering)) break;
      this.renewAbort();
    } while (true);
    // Input the client was told joined the turn is in it before it closes.
    await this.allSteersRecorded();
    this.closing = true;
    this.thread.conversation = [...this.thread.conversation, ...this.exchange];
    await this.end(endOf(outcome, outcome.status === 'completed' ? (reply.agentItem?.text ?? null) : lastAgentText, firstTokenMs), outcome);
  }

  #begin(content: UserContent): void {
    const { threadId, format, emit } = this.thread;
    const { turnId } = this;
    const command = this.#command;
    const userItem: UserMessageItem = {
      type: 'userMessage',
      id: command.userItemId,
      clientId: command.clientId,
      content: command.input,
      startedAtMs: this.startedAtMs,
      completedAtMs: this.startedAtMs,
    };
    const start = format.turnStart({ threadId, turnId, startedAtMs: this.startedAtMs, context: turnContext(turnId, command.settings), userItem, modelContent: content });
    const at = this.thread.queueAnchored(this.writes, 'start', start);
    this.announceStart(at.turn);
    emit({ type: 'userItem', threadId, turnId, item: userItem, ordinal: at.item });
    for (const steered of this.#takeSteered()) this.queueSteer(steered);
  }
}

function turnContext(turnId: string, settings: ThreadSettings): TurnContextInput {
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
