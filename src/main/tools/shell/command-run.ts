// Running an approved (or unprivileged) `exec_command`: the item shows its process, the output
// streams to the thread's clients in the reference's chunk sizes, and the end becomes the
// finished item and the model's text.
import { performance } from 'node:perf_hooks';
import type { CommandExecutionItem } from '../../../common/wire-types.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { threadSandboxPolicy } from './thread-sandbox.js';
import type { ExecCommandArgs } from './exec-command-args.js';
import { announceCompleted, announceStarted } from './command-item-notices.js';
import { unifiedExecOutputText } from './unified-exec-output.js';
import { commandEnv } from './command-env.js';
import { CommandOutputStream } from './command-output-stream.js';

// There is no background session to yield to, so a command runs to its end; this bounds a
// command that never ends (the reference would leave it running and answer the model).
export const COMMAND_DEADLINE_MS = 10 * 60_000;

/** The call's end: the model's text, and the item the history keeps. */
export interface CommandEnd {
  output: string;
  item: CommandExecutionItem;
}

export async function runCommand(
  ctx: HostContext,
  thread: LoadedThread,
  turnId: string,
  asked: CommandExecutionItem,
  argv: readonly string[],
  args: ExecCommandArgs,
  escalated: boolean,
  announced: boolean,
): Promise<CommandEnd> {
  const item: CommandExecutionItem = { ...asked, processId: String(ctx.shell.nextSessionId()), source: 'unifiedExecStartup' };
  // An approved command was announced before the question, without its process.
  if (!announced) announceStarted(ctx, thread, turnId, item);
  const policy = escalated ? ({ type: 'danger-full-access' } as const) : threadSandboxPolicy(ctx, thread.settings!.sandboxMode);
  const live = new CommandOutputStream(ctx, thread, turnId, item.id);
  const started = performance.now();
  const result =
    policy === null
      ? ({ kind: 'refused', reason: 'sandboxSetupFailed', message: 'the thread has no sandbox policy the host can apply' } as const)
      : await ctx.shell.run(thread.id, turnId, {
          argv,
          cwd: item.cwd,
          env: commandEnv(ctx.env),
          policy,
          timeoutMs: COMMAND_DEADLINE_MS,
          onOutput: live.onOutput,
        });
  live.end();
  const wallTimeMs = performance.now() - started;
  const completedAtMs = ctx.clock.now();
  // The run's own time, as the reference's: an approval's wait is in the item's span, not here.
  const durationMs = Math.round(wallTimeMs);
  if (result.kind === 'refused') {
    const failed: CommandExecutionItem = { ...item, status: 'failed', aggregatedOutput: result.message, exitCode: null, durationMs, completedAtMs };
    announceCompleted(ctx, thread, turnId, failed);
    return { output: `exec_command failed: ${result.message}`, item: failed };
  }
  const output = live.outputOf(result);
  const finished: CommandExecutionItem = {
    ...item,
    status: result.exitCode === 0 ? 'completed' : 'failed',
    aggregatedOutput: output,
    exitCode: result.exitCode,
    durationMs,
    completedAtMs,
  };
  announceCompleted(ctx, thread, turnId, finished);
  if (result.ending === 'interrupted') return { output: `Wall time: ${Math.round(wallTimeMs / 100) / 10} seconds\naborted by user`, item: finished };
  const text = unifiedExecOutputText(output, wallTimeMs, { kind: 'exited', exitCode: result.exitCode }, args.maxOutputTokens ?? undefined);
  return { output: text, item: finished };
}
