// Running an approved (or unprivileged) `exec_command`, as the reference's unified exec runs
// it: the item shows its process (the session id), the output streams to the thread's
// clients, and the call waits for the yield time. A command done by then is answered with its
// exit code and finished item; one still running is answered `Process running with session
// ID N` and stays a session (exec-session.ts) that `write_stdin` reads and feeds, ended only
// by its own end, its thread's unload, or shutdown.
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
import { ExecSession } from './exec-session.js';
import { finishedItemOf, reportIfUnreported, reportSessionEnd } from './exec-session-report.js';
import { DEFAULT_TERMINAL_SIZE } from '../exec/default-terminal-size.js';

// The reference's unified-exec yield bounds (`MIN_YIELD_TIME_MS`, `MAX_YIELD_TIME_MS`) and
// default for `exec_command`.
export const MIN_YIELD_TIME_MS = 250;
export const MAX_YIELD_TIME_MS = 30_000;
const DEFAULT_EXEC_YIELD_TIME_MS = 10_000;
// The reference sets no deadline on a session; this bounds one the model forgot and whose
// thread stays loaded (the runner's timer cannot wait longer than about 24.8 days).
export const SESSION_DEADLINE_MS = 24 * 3600_000;
/** A user's own shell command (`thread/shellCommand`) runs to its end; this bounds one that never ends. */
export const COMMAND_DEADLINE_MS = 10 * 60_000;

/** The call's end: the model's text, and the finished item when the command ended within the call. */
export interface CommandEnd {
  output: string;
  item: CommandExecutionItem | null;
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
  const id = ctx.shell.nextSessionId();
  const item: CommandExecutionItem = { ...asked, processId: String(id), source: 'unifiedExecStartup' };
  // An approved command was announced before the question, without its process.
  if (!announced) announceStarted(ctx, thread, turnId, item);
  const policy = escalated ? ({ type: 'danger-full-access' } as const) : threadSandboxPolicy(ctx, thread.settings!.sandboxMode);
  if (policy === null) {
    const message = 'the thread has no sandbox policy the host can apply';
    const failed: CommandExecutionItem = { ...item, status: 'failed', aggregatedOutput: message, exitCode: null, durationMs: 0, completedAtMs: ctx.clock.now() };
    announceCompleted(ctx, thread, turnId, failed);
    return { output: `exec_command failed: ${message}`, item: failed };
  }
  const live = new CommandOutputStream(ctx, thread, turnId, item.id);
  const started = performance.now();
  const session = new ExecSession(id, thread.id, turnId, item, args.tty, started, (end) => finishedItemOf(ctx, item, live, end));
  ctx.shell.sessions.add(session);
  const run = ctx.shell.runSession(session, {
    argv,
    cwd: item.cwd,
    env: commandEnv(ctx.env),
    policy,
    // `tty` is the reference's pty (the command/exec terminal runner); without it there is no stdin.
    ...(args.tty ? { terminal: DEFAULT_TERMINAL_SIZE } : {}),
    timeoutMs: SESSION_DEADLINE_MS,
    onOutput: (stream, chunk) => {
      live.onOutput(stream, chunk);
      session.append(chunk);
    },
  });
  void run.then((result) => {
    live.end();
    const end = { result, durationMs: performance.now() - started };
    // Nobody is reading it: the model left it running, so its end is reported as it happens.
    if (session.finish(end)) reportSessionEnd(ctx, thread, session, end);
  });
  const yieldMs = Math.min(Math.max(args.yieldTimeMs ?? DEFAULT_EXEC_YIELD_TIME_MS, MIN_YIELD_TIME_MS), MAX_YIELD_TIME_MS);
  const now = () => performance.now();
  const read = await ctx.shell.waitInTurn(thread.id, turnId, (signal) => session.read(started + yieldMs, now, signal));
  const wallTimeMs = performance.now() - started;
  if (read === 'interrupted') {
    // The process runs on, as the reference's does; an end that came meanwhile is reported now.
    reportIfUnreported(ctx, thread, session);
    return { output: `Wall time: ${Math.round(wallTimeMs / 100) / 10} seconds\naborted by user`, item: null };
  }
  if (read.end === null) {
    return { output: unifiedExecOutputText(read.output, wallTimeMs, { kind: 'running', sessionId: id }, args.maxOutputTokens), item: null };
  }
  ctx.shell.sessions.remove(session);
  session.claimReport();
  const finished = session.finishedItem(read.end);
  announceCompleted(ctx, thread, turnId, finished);
  const { result } = read.end;
  if (result.kind === 'refused') return { output: `exec_command failed: ${result.message}`, item: finished };
  return { output: unifiedExecOutputText(read.output, wallTimeMs, { kind: 'exited', exitCode: result.exitCode }, args.maxOutputTokens), item: finished };
}
