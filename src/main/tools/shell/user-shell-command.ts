// `thread/shellCommand`: the user's own command in a thread, as the reference runs it. It is
// answered `{}` at once; the command then runs as a turn of its own (or, while a turn runs, as
// an item of that turn) with a `commandExecution` item whose `source` is `userShell`, and no
// model request. The thread's actor records it once it ended (its item, and its result as a note
// the model is given later), and ends its own turn. Like the reference's, it runs outside the thread's sandbox (a user's command is
// the user's to run), through the host's CommandRunner, and ends with an interrupt of its turn.
import { randomUUID } from 'node:crypto';
import type { CommandExecutionItem, TurnId } from '../../../common/wire-types.js';
import type { UserShellCommand } from '../../../common/actor-messages.js';
import { joinWords } from '../../../common/shell-words.js';
import type { HostContext } from '../../host-context.js';
import { acceptedTurn } from '../../handlers/loaded-turn-lookup.js';
import { uuidv7 } from '../../protocol/uuid.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { withPlacedActor } from '../../threads/actor-link.js';
import { endTurnLocally, startTurnLocally } from '../../threads/turn-events.js';
import { commandActionsOf } from './command-actions.js';
import { hostEnvWithoutSecrets } from './command-env.js';
import { announceCompleted, announceStarted } from './command-item-notices.js';
import { CommandOutputStream } from './command-output-stream.js';
import { COMMAND_DEADLINE_MS } from './command-run.js';

/** Starts the command (already checked, and answered `{}`) in `thread`. */
export function startUserShellCommand(ctx: HostContext, thread: LoadedThread, command: string, timeoutMs: number | null): void {
  const now = ctx.clock.now();
  const joined = thread.runningTurnId;
  let turnId: string;
  if (joined !== null) {
    turnId = joined;
  } else {
    turnId = uuidv7(now) as TurnId;
    thread.hostTurnAccepted(acceptedTurn(turnId as TurnId), now);
    ctx.supervisor.noteChanged(thread);
    startTurnLocally(ctx, thread, turnId, now);
  }
  void runUserShell(ctx, thread, turnId, command, timeoutMs).then(({ ending, item }) => {
    const interrupted = ending === 'interrupted';
    // Without an actor (its worker is gone) the turn still ends for the clients, unrecorded.
    const unrecorded = (): void => {
      if (joined !== null) return;
      const completedAtMs = ctx.clock.now();
      endTurnLocally(ctx, thread, turnId, { status: interrupted ? 'interrupted' : 'completed', error: null, completedAtMs, durationMs: completedAtMs - now });
    };
    const record: UserShellCommand = { turnId, ownTurn: joined === null, settings: thread.settings!, startedAtMs: now, command, item, interrupted };
    // The actor records it as the reference does, and ends its own turn (turn-events.ts).
    withPlacedActor(ctx, thread, (link) => void link.api.recordUserShell(thread.id, record).catch((error: unknown) => {
      ctx.log('warn', 'a user command could not be recorded', { threadId: thread.id, turnId, error: (error as Error).message });
      unrecorded();
    }), unrecorded);
  });
}

async function runUserShell(ctx: HostContext, thread: LoadedThread, turnId: string, command: string, timeoutMs: number | null): Promise<{ ending: 'ran' | 'interrupted'; item: CommandExecutionItem }> {
  const cwd = thread.settings!.cwd;
  const argv = ['/bin/bash', '-lc', command];
  const startedAtMs = ctx.clock.now();
  const item: CommandExecutionItem = {
    type: 'commandExecution',
    // The reference's user-shell items are uuid v4s, not call ids.
    id: randomUUID(),
    pluginId: null,
    scriptPath: null,
    command: joinWords(argv),
    cwd,
    processId: null,
    source: 'userShell',
    status: 'inProgress',
    commandActions: commandActionsOf(command, cwd),
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
    startedAtMs,
    completedAtMs: null,
  };
  announceStarted(ctx, thread, turnId, item);
  const live = new CommandOutputStream(ctx, thread, turnId, item.id);
  const result = await ctx.shell.run(thread.id, turnId, {
    argv,
    cwd,
    env: hostEnvWithoutSecrets(ctx.env),
    policy: { type: 'danger-full-access' },
    timeoutMs: timeoutMs === null ? COMMAND_DEADLINE_MS : Math.max(0, Math.min(timeoutMs, COMMAND_DEADLINE_MS)),
    onOutput: live.onOutput,
  });
  live.end();
  const completedAtMs = ctx.clock.now();
  const durationMs = completedAtMs - startedAtMs;
  if (result.kind === 'refused') {
    const refused: CommandExecutionItem = { ...item, status: 'failed', aggregatedOutput: result.message, durationMs, completedAtMs };
    announceCompleted(ctx, thread, turnId, refused);
    return { ending: result.reason === 'interrupted' ? 'interrupted' : 'ran', item: refused };
  }
  if (result.ending === 'interrupted') {
    // The reference's item for an aborted user command: its text, exit -1 and a zero duration.
    const aborted: CommandExecutionItem = { ...item, status: 'failed', aggregatedOutput: 'command aborted by user', exitCode: -1, durationMs: 0, completedAtMs };
    announceCompleted(ctx, thread, turnId, aborted);
    return { ending: 'interrupted', item: aborted };
  }
  const finished: CommandExecutionItem = { ...item, status: result.exitCode === 0 ? 'completed' : 'failed', aggregatedOutput: live.outputOf(result), exitCode: result.exitCode, durationMs, completedAtMs };
  announceCompleted(ctx, thread, turnId, finished);
  return { ending: 'ran', item: finished };
}
