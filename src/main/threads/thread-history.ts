// A thread's recorded history for paged reads: from the main thread's mirror when the thread
// is loaded here (never asking its worker), else from its rollout on disk.
import { historyModeOf, readRollout } from '../../common/history/rollout-reader.js';
import type { HostContext } from '../host-context.js';
import type { HistorySource } from './history-pages.js';
import { afterPendingLoad } from './pending-load.js';

/** 'notMaterialized': loaded here but without a turn yet; 'unknown': neither loaded nor on disk. */
export type HistoryLookup = { kind: 'found'; source: HistorySource } | { kind: 'notMaterialized' } | { kind: 'unknown' };

export async function historyOf(ctx: HostContext, threadId: string): Promise<HistoryLookup> {
  await afterPendingLoad(ctx, threadId, () => undefined);
  const thread = ctx.directory.get(threadId);
  if (thread && (thread.lifecycle.kind === 'loaded' || thread.lifecycle.kind === 'unloading') && thread.identity) {
    if (!thread.materialized) return { kind: 'notMaterialized' };
    return { kind: 'found', source: { threadId, mode: thread.historyMode, turns: thread.turns, positions: thread.positions() } };
  }
  const path = await ctx.rollouts.find(threadId);
  if (path === null) return { kind: 'unknown' };
  const parsed = await readRollout(path);
  if (parsed.meta === null) return { kind: 'unknown' };
  const mode = historyModeOf(parsed.meta);
  return { kind: 'found', source: { threadId, mode, turns: parsed.turns, positions: parsed.positions } };
}
