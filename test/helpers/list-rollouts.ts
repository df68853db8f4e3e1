// Every rollout under a home as thread/list finds it, each stat'ed, newest first (ties by
// thread id): the summaries the history tests check.
import type { RolloutSummary } from '../../src/common/stored-history-messages.js';
import { listRolloutHeads } from '../../src/stored-history/head-reads.js';
import { RolloutHeads } from '../../src/stored-history/rollout-heads.js';

export async function listRollouts(home: string, heads: RolloutHeads = new RolloutHeads()): Promise<RolloutSummary[]> {
  const listed = listRolloutHeads(home, heads, 'validate');
  return listed
    .map(({ head, updatedAtMs }) => ({ ...head, updatedAtMs: updatedAtMs as number }))
    .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
}
