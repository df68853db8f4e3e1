// Every rollout under a home as thread/list finds it, each stat'ed, newest first (ties by
// thread id): the summaries the history tests check.
import { RolloutHeads } from '../../src/main/history/rollout-heads.js';
import { listRolloutHeads, type RolloutSummary } from '../../src/main/history/rollout-locator.js';

export async function listRollouts(home: string, heads: RolloutHeads = new RolloutHeads()): Promise<RolloutSummary[]> {
  const listed = await listRolloutHeads(home, heads, 'validate');
  return listed
    .map(({ head, updatedAtMs }) => ({ ...head, updatedAtMs: updatedAtMs as number }))
    .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
}
