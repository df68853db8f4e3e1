// A revert's new rollout file on the files store: one session_meta whose history base is the
// thread's history before the reverted turn (revert-rollout.ts finds where it ends).
import type { RevertRequest } from '../../../common/actor-messages.js';
import { readPrefix, withHistoryBase } from '../../../common/rollout/history-base.js';
import { baseAt } from '../../rollout-writer/fork-rollout.js';
import { stampOrdinal } from '../../rollout-writer/paginated-format.js';
import { revertCut } from '../../rollout-writer/revert-rollout.js';
import { sessionMeta, type SessionMetaInput } from '../../rollout-writer/rollout-lines.js';
import { writeNewRolloutFile } from './new-rollout-file.js';

/**
 * Writes the session_meta of the reverted thread's new file at `path` (which must not exist
 * yet) and makes it durable before the revert is answered. Refuses as the reference does: a
 * turn the thread's history does not hold is "turn not found" (the refusal crosses to the host
 * as thread/fork's do, errors.ts).
 */
export async function writeRevertRollout(path: string, request: RevertRequest, meta: SessionMetaInput): Promise<void> {
  const { previousPath } = request;
  const own = previousPath === null ? null : readPrefix(previousPath, Number.POSITIVE_INFINITY);
  if (previousPath === null || own === null) throw new Error(`the rollout of thread ${meta.threadId} cannot be read`);
  const cut = revertCut(request, withHistoryBase(previousPath, own));
  const base = cut === null ? null : baseAt(previousPath, own, cut.ordinal);
  const first = sessionMeta({ ...meta, createdAtMs: request.atMs, ...(base === null ? {} : { historyBase: base }) }, request.atMs, 'paginated');
  await writeNewRolloutFile(path, [stampOrdinal(first, base?.endOrdinalExclusive ?? 0)]);
}
