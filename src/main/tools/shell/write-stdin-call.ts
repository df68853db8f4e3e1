// One `write_stdin` call, as the reference's unified exec answers it: the session the model
// names gets the characters (a session with `tty` has a terminal that gets them all; one
// without has no stdin, and Ctrl-C is SIGINT to its group), then the call waits for output as long as the reference would (a write 250 ms by
// default, at most 30 s; an empty poll 5 s to 300 s), or until the process ends. Its clients
// hear `item/commandExecution/terminalInteraction` for a write or a session still running,
// then the item's end if the process ended.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolAnswer, ToolCall } from '../../../common/actor-messages.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { outputIdOf } from '../tool-output-id.js';
import { MAX_YIELD_TIME_MS, MIN_YIELD_TIME_MS } from './command-run.js';
import type { ExecSession } from './exec-session.js';
import { reportIfUnreported } from './exec-session-report.js';
import { unifiedExecOutputText } from './unified-exec-output.js';
import { decodeWriteStdinArgs, type WriteStdinArgs } from './write-stdin-args.js';

/** The reference's answer to a write to a session without a terminal. */
export const STDIN_CLOSED_TEXT = 'write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open';
const CTRL_C = '\u0003';
// The reference's bounds of an empty poll (`MIN_EMPTY_YIELD_TIME_MS`, the default
// `max_write_stdin_yield_time_ms`).
const MIN_EMPTY_YIELD_TIME_MS = 5_000;
const MAX_EMPTY_YIELD_TIME_MS = 300_000;
// After a write, the reference gives the process this long to react before it reads.
const AFTER_WRITE_MS = 100;

export function callWriteStdin(ctx: HostContext, thread: LoadedThread, turnId: string, call: ToolCall, done: (answer: ToolAnswer) => void): void {
  const answer = (output: string): void => done({ turnId, callId: call.callId, output, outputId: outputIdOf(ctx), item: null });
  const decoded = decodeWriteStdinArgs(call.input);
  if (!decoded.ok) return answer(decoded.message);
  const { args } = decoded;
  const session = ctx.shell.sessions.get(thread.id, args.sessionId);
  if (session === undefined) return answer(`write_stdin failed: Unknown process id ${args.sessionId}`);
  session.lastUsedMs = performance.now();
  const release = session.engage();
  void interact(ctx, thread, turnId, session, args).then((text) => {
    release();
    // An end that came while the call was at the session and that it did not read (a refused
    // write) is reported before the answer, as any end the call saw.
    reportIfUnreported(ctx, thread, session);
    answer(text);
  });
}

async function interact(ctx: HostContext, thread: LoadedThread, turnId: string, session: ExecSession, args: WriteStdinArgs): Promise<string> {
  const { chars } = args;
  if (session.tty) {
    if (chars !== '' && (await session.write(chars))) await sleep(AFTER_WRITE_MS);
  } else if (chars === CTRL_C) session.interrupt();
  else if (chars !== '') return STDIN_CLOSED_TEXT;
  const started = performance.now();
  const waitMs = yieldOf(args);
  const read = await ctx.shell.waitInTurn(thread.id, turnId, (signal) => session.read(started + waitMs, () => performance.now(), signal));
  const wallTimeMs = performance.now() - started;
  if (read === 'interrupted') {
    reportIfUnreported(ctx, thread, session);
    return `aborted by user after ${(wallTimeMs / 1000).toFixed(1)}s`;
  }
  if (read.end !== null) ctx.shell.sessions.remove(session);
  if (chars !== '' || read.end === null) {
    const params = { threadId: thread.id, turnId, itemId: session.item.id, processId: String(session.id), stdin: chars };
    ctx.outgoing.notifyMany(thread.subscribers, 'item/commandExecution/terminalInteraction', params);
  }
  if (read.end !== null) reportIfUnreported(ctx, thread, session);
  if (read.end === null) return unifiedExecOutputText(read.output, wallTimeMs, { kind: 'running', sessionId: session.id }, args.maxOutputTokens);
  const { result } = read.end;
  if (result.kind === 'refused') return `write_stdin failed: ${result.message}`;
  return unifiedExecOutputText(read.output, wallTimeMs, { kind: 'exited', exitCode: result.exitCode }, args.maxOutputTokens);
}

function yieldOf({ chars, yieldTimeMs }: WriteStdinArgs): number {
  const asked = Math.max(yieldTimeMs, MIN_YIELD_TIME_MS);
  if (chars === '') return Math.min(Math.max(asked, MIN_EMPTY_YIELD_TIME_MS), MAX_EMPTY_YIELD_TIME_MS);
  return Math.min(asked, MAX_YIELD_TIME_MS);
}
