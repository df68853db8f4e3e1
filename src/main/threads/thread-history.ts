// A thread's recorded history for paged reads: from the main thread's transcript when the thread
// is loaded here (never asking its worker), else where its rollout is, for the stored-history
// worker to read.
import type { HostContext } from '../host-context.js';
import type { HistoryLocation } from '../../common/history-location.js';
import type { HistorySource } from '../../common/rollout/history-pages.js';
import { afterHistoryLoaded } from './pending-load.js';
import type { ThreadId } from '../../common/thread-id.js';

/**
 * 'loaded': the transcript of a thread loaded here; 'stored': the rollout of one that is not;
 * 'notMaterialized': loaded here but without a turn yet; 'unknown': neither loaded nor on disk.
 */
export type HistoryLookup = { kind: 'loaded'; source: HistorySource } | { kind: 'stored'; location: HistoryLocation } | { kind: 'notMaterialized' } | { kind: 'unknown' };

export async function historyOf(ctx: HostContext, threadId: ThreadId): Promise<HistoryLookup> {
  await afterHistoryLoaded(ctx, threadId, () => undefined);
  const thread = ctx.directory.get(threadId);
  if (thread?.readsFromTranscript) {
    if (!thread.materialized) return { kind: 'notMaterialized' };
    return { kind: 'loaded', source: thread.historySource() };
  }
  const location = await ctx.store.threads.locate(threadId);
  return location === null ? { kind: 'unknown' } : { kind: 'stored', location };
}
