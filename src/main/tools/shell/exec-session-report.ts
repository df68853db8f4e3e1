// A session's end as the thread's clients and its history see it: the finished item, from the
// item as it started, what streamed, and how the process ended. Reported once: by the call
// that read the end, or, when none did (the model left it running), when it happens, under
// the turn that started it, into that turn's place in the history.
import type { CommandExecutionItem } from '../../../common/wire-types.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import { announceCompleted } from './command-item-notices.js';
import type { CommandOutputStream } from './command-output-stream.js';
import type { ExecSession, SessionEnd } from './exec-session.js';

/** The item once the process ended. */
export function finishedItemOf(ctx: HostContext, started: CommandExecutionItem, live: CommandOutputStream, end: SessionEnd): CommandExecutionItem {
  const { result } = end;
  const durationMs = Math.round(end.durationMs);
  const completedAtMs = ctx.clock.now();
  if (result.kind === 'refused') return { ...started, status: 'failed', aggregatedOutput: result.message, exitCode: null, durationMs, completedAtMs };
  return {
    ...started,
    status: result.exitCode === 0 ? 'completed' : 'failed',
    aggregatedOutput: live.outputOf(result),
    exitCode: result.exitCode,
    durationMs,
    completedAtMs,
  };
}

/** `item/completed` to the thread's clients and the item into the history, under the session's turn. */
export function reportSessionEnd(ctx: HostContext, thread: LoadedThread, session: ExecSession, end: SessionEnd): void {
  if (thread.lifecycle.kind !== 'loaded') return;
  const item = session.finishedItem(end);
  announceCompleted(ctx, thread, session.turnId, item);
  const link = ctx.pool.linkOf(thread.id);
  link?.api.recordItem(thread.id, session.turnId, item).catch((error: unknown) =>
    ctx.log('warn', 'a finished command did not reach the thread history', { threadId: thread.id, itemId: item.id, error: (error as Error).message }),
  );
}

/** Reports an end nobody has reported yet (one that came while a call was at the session and did not read it). */
export function reportIfUnreported(ctx: HostContext, thread: LoadedThread, session: ExecSession): void {
  const end = session.claimReport() ? session.end : null;
  if (end !== null) reportSessionEnd(ctx, thread, session, end);
}
