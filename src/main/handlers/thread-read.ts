// `thread/read`: a loaded thread is answered from the main thread's mirror; an unloaded one
// from its rollout on disk. It never loads or subscribes the thread.
import { readRollout } from '../../shared/history/rollout-reader.js';
import type { Connection } from '../connections.js';
import { ErrorCode, invalidRequest, RpcError, threadNotLoaded } from '../errors.js';
import type { HostContext } from '../host-context.js';
import type { threadReadParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { loadedThreadView, storedThreadView } from '../protocol/thread-view.js';
import { afterPendingLoad } from '../threads/pending-load.js';

export async function threadRead(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadReadParams>): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  await afterPendingLoad(ctx, id, () => undefined);
  const thread = ctx.directory.get(id);
  if (thread && (thread.lifecycle.kind === 'loaded' || thread.lifecycle.kind === 'unloading') && thread.identity) {
    if (params.includeTurns && thread.identity.ephemeral) throw invalidRequest('ephemeral threads do not support includeTurns');
    if (params.includeTurns && !thread.materialized) {
      throw new RpcError(ErrorCode.MethodNotFound, 'list_turns is not supported yet');
    }
    const turns = params.includeTurns ? thread.turns.map((turn) => ({ ...turn, itemsView: 'full' as const })) : null;
    return { thread: loadedThreadView(thread, turns) };
  }
  const path = await ctx.rollouts.find(id);
  if (path === null) throw threadNotLoaded(id);
  const parsed = await readRollout(path);
  if (!parsed.meta) throw threadNotLoaded(id);
  return {
    thread: storedThreadView(
      {
        id,
        preview: parsed.preview,
        modelProvider: parsed.meta.modelProvider,
        model: parsed.meta.model,
        createdAtMs: parsed.meta.createdAtMs,
        updatedAtMs: parsed.updatedAtMs,
        path,
        cwd: parsed.meta.cwd,
        cliVersion: parsed.meta.cliVersion,
        originator: parsed.meta.originator,
        source: parsed.meta.source,
        turns: parsed.turns.map((turn) => ({ ...turn, itemsView: 'full' as const })),
      },
      params.includeTurns,
    ),
  };
}
