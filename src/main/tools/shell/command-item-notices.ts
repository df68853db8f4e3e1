// The notifications of a command's item, which the transcript keeps too.
import type { CommandExecutionItem } from '../../../common/wire-types.js';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';

/** `item/started` for the item, kept by the transcript. */
export function announceStarted(ctx: HostContext, thread: LoadedThread, turnId: string, item: CommandExecutionItem): void {
  thread.toolItemStarted(turnId, item);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/started', { item, threadId: thread.id, turnId, startedAtMs: item.startedAtMs });
}

/**
 * `item/completed` for the finished item, kept by the transcript. A command that printed
 * nothing shows `aggregatedOutput: null`, as the reference's does (its record keeps "").
 */
export function announceCompleted(ctx: HostContext, thread: LoadedThread, turnId: string, finished: CommandExecutionItem): void {
  const item = finished.aggregatedOutput === '' ? { ...finished, aggregatedOutput: null } : finished;
  thread.toolItemCompleted(turnId, item);
  ctx.outgoing.notifyMany(thread.subscribers, 'item/completed', { item, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs: item.completedAtMs });
}
