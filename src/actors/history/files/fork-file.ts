// A fork's rollout file on the files store: its session_meta names the source and the base its
// history continues (fork-rollout.ts decides both), then a legacy fork's copied lines.
import type { ForkRequest } from '../../../common/actor-messages.js';
import { fileForkSource, forkStart } from '../../rollout-writer/fork-rollout.js';
import { stampOrdinal } from '../../rollout-writer/paginated-format.js';
import { sessionMeta, type SessionMetaInput } from '../../rollout-writer/rollout-lines.js';
import { writeNewRolloutFile } from './new-rollout-file.js';

/** Writes the new rollout of a fork at `path` (which must not exist yet), durable before the fork is answered. */
export async function writeForkRollout(path: string, request: ForkRequest, meta: SessionMetaInput, nowMs: number): Promise<void> {
  const start = forkStart(request, new Date(nowMs).toISOString(), fileForkSource(request));
  const first = sessionMeta({ ...meta, ...(request.sourceCwd ? { cwd: start.cwd } : {}), fork: { forkedFromId: request.sourceThreadId, base: start.base } }, nowMs, start.historyMode);
  await writeNewRolloutFile(path, [start.base === null ? first : stampOrdinal(first, start.base.endOrdinalExclusive), ...start.copied]);
}
