// The turn of a user's own command (thread/shellCommand), recorded once the host ran it, as
// the reference records one: task_started (no turn context, no user message), the command's
// item, its result as a harness note the model is given on later turns, and the turn's end.
// The host announced the turn's start and its item itself; the end is reported as any turn's.
import type { UserShellCommand } from '../../common/actor-messages.js';
import { DEFAULT_TRUNCATION_POLICY, formattedTruncateText } from '../../common/output-truncation.js';
import { harnessNoteLine, userShellText, USER_SHELL_KIND } from '../rollout-writer/harness-notes.js';
import { taskStarted } from '../rollout-writer/rollout-lines.js';
import { RunningTurn } from './running-turn.js';
import type { ThreadState } from './thread-state.js';
import { endOf } from './turn-outcome.js';

export class UserShellTurn extends RunningTurn {
  readonly #command: UserShellCommand;

  constructor(thread: ThreadState, command: UserShellCommand) {
    super(thread, {
      turnId: command.turnId,
      settings: command.settings,
      userText: userShellNote(command),
      interrupted: command.interrupted,
      movesReadState: false,
      startedAtMs: command.startedAtMs,
    });
    this.#command = command;
  }

  async run(): Promise<void> {
    const { threadId, format, emit } = this.thread;
    const { turnId, startedAtMs } = this;
    const { item } = this.#command;
    const start = { lines: [taskStarted(turnId, Math.floor(startedAtMs / 1000), startedAtMs)], turnLine: 0 };
    this.announceStart(this.thread.queueAnchored(this.writes, 'start', start).turn, true);
    const completedAtMs = item.completedAtMs ?? startedAtMs;
    const note = [harnessNoteLine(this.userText, USER_SHELL_KIND, turnId, completedAtMs)];
    // The reference records an aborted command's result before its item, a finished one's after.
    if (this.interrupted) this.writes.add('item', note);
    const at = this.thread.queueAnchored(this.writes, 'item', format.standaloneItem(item, turnId, completedAtMs));
    emit({ type: 'toolItemRecorded', threadId, turnId, itemId: item.id, ordinal: at.item });
    if (!this.interrupted) this.writes.add('item', note);
    this.thread.conversation = [...this.thread.conversation, ...this.exchange];
    const outcome = { status: this.interrupted ? 'interrupted' : 'completed', error: null } as const;
    await this.end(endOf(outcome, null, null), outcome);
  }
}

/**
 * The result the model is given: the command, its exit code, duration and output, the output
 * cut in the middle behind the reference's warning when it is over the model's budget.
 */
export function userShellNote({ command, item }: Pick<UserShellCommand, 'command' | 'item'>): string {
  const output = formattedTruncateText(item.aggregatedOutput ?? '', DEFAULT_TRUNCATION_POLICY);
  return userShellText(command, item.exitCode ?? -1, item.durationMs ?? 0, output);
}
