// `thread/shellCommand`: the user's own command in a thread, as the reference runs it. It is
// answered `{}` at once; the command then runs as a turn of its own (or, while a turn runs, as
// an item of that turn) with a `commandExecution` item whose `source` is `userShell`, and no
// model request. Like the reference's, it runs outside the thread's sandbox (a user's command is
// the user's to run), through the host's CommandRunner, and ends with an interrupt of its turn.
import { randomUUID } from 'node:crypto';
import type { CommandExecutionItem, TurnId } from '../../../common/wire-types.js';
import { joinWords } from '../../../common/shell-words.js';
import type { HostContext } from '../../host-context.js';
import { acceptedTurn } from '../../handlers/loaded-turn-lookup.js';
import { uuidv7 } from '../../protocol/uuid.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
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
  void runUserShell(ctx, thread, turnId, command, timeoutMs).then((ending) => {
    if (joined !== null) return;
    const completedAtMs = ctx.clock.now();
    endTurnLocally(ctx, thread, turnId, { status: ending === 'interrupted' ? 'interrupted' : 'completed', error: null, completedAtMs, durationMs: completedAtMs - now });
  });
}

async function runUserShell(ctx: HostContext, thread: LoadedThread, turnId: string, command: string, timeoutMs: number | null): Promise<'ran' | 'interrupted'> {
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
    announceCompleted(ctx, thread, turnId, { ...item, status: 'failed', aggregatedOutput: result.message, durationMs, completedAtMs });
    return result.reason === 'interrupted' ? 'interrupted' : 'ran';
  }
  if (result.ending === 'interrupted') {
    // The reference's item for an aborted user command: its text, exit -1 and a zero duration.
    announceCompleted(ctx, thread, turnId, { ...item, status: 'failed', aggregatedOutput: 'command aborted by user', exitCode: -1, durationMs: 0, completedAtMs });
    return 'interrupted';
  }
  const status = result.exitCode === 0 ? 'completed' : 'failed';
  announceCompleted(ctx, thread, turnId, { ...item, status, aggregatedOutput: live.outputOf(result), exitCode: result.exitCode, durationMs, completedAtMs });
  return 'ran';
}
