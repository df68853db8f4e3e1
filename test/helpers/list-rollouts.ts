// Rollouts under a home as thread/list finds them: every head as one listing `use` would find
// it (listedHead over every file of the walk, newest name first), and the summaries the history
// tests check (each file stat'ed, newest first, ties by thread id).
import type { RolloutSummary } from '../../src/common/stored-history-messages.js';
import { listedHead, type HeadUse, type ListedRollout } from '../../src/stored-reads/head-reads.js';
import { ListingMemory } from '../../src/stored-reads/listing-memory.js';
import { RolloutHeads } from '../../src/stored-reads/rollout-heads.js';

export function listRolloutHeads(home: string, heads: RolloutHeads, use: HeadUse): ListedRollout[] {
  return new ListingMemory(heads).rolloutFiles(home).flatMap((file) => listedHead(file, null, heads, use) ?? []);
}

export async function listRollouts(home: string, heads: RolloutHeads = new RolloutHeads()): Promise<RolloutSummary[]> {
  const listed = listRolloutHeads(home, heads, 'validate');
  return listed
    .map(({ head, updatedAtMs }) => ({ ...head, updatedAtMs: updatedAtMs as number }))
    .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
}
