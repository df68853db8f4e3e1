// `thread/readState/update`, as codex 0.171.0 answers it
// (test/fixtures/reference-answers/thread-read-state.jsonl): marks a thread read or unread if
// the client saw its latest revision, loaded here or stored (no history is written, so another
// process's writer does not matter), answers the new state and tells every client. Also what
// thread/read and thread/list show of it. The state is thread-host's own durable copy
// (store/files/thread-read-states.ts, or on the PostgreSQL store the threads row every host
// shares: store/postgres/postgres-read-states.ts): the reference keeps it in its state database.
import { invalidParams, invalidRequest, threadNotLoaded, RpcError, ErrorCode } from '../../common/errors.js';
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { threadReadStateUpdateParams } from '../protocol/discovery-params.js';
import { parseThreadId } from '../protocol/thread-id.js';
import type { ThreadReadState } from '../store/files/thread-read-states.js';
import { afterPendingLoad } from '../threads/pending-load.js';
import type { ThreadId } from '../../common/thread-id.js';

export async function threadReadStateUpdate(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadReadStateUpdateParams>): Promise<unknown> {
  // This method's malformed id is -32602, unlike most methods' (protocol/thread-id.ts).
  const parsed = parseThreadId(params.threadId);
  if (!parsed.ok) throw invalidParams(`invalid thread id: ${parsed.error}`);
  const id = parsed.value;
  await afterPendingLoad(ctx, id, () => undefined);
  const loaded = ctx.directory.get(id);
  if (loaded?.readsFromTranscript && loaded.identity) {
    if (!loaded.materialized || loaded.identity.ephemeral) throw invalidRequest('thread read state unavailable');
  } else if ((await ctx.store.threads.locate(id)) === null && (await ctx.store.threads.locateArchived(id)) === null) {
    throw threadNotLoaded(id);
  }
  const { changed, state } = await ctx.store.readStates.mark(id, params.operation, params.expectedRevision, ctx.clock.now());
  if (!changed) throw new RpcError(ErrorCode.InvalidRequest, 'read state changed', { reason: 'readStateConflict', readState: state });
  ctx.outgoing.broadcast('thread/readState/changed', { threadId: id, readState: state });
  return { readState: state };
}

/** What thread/read shows of a loaded thread: none before its rollout exists. */
export function loadedReadState(ctx: HostContext, threadId: ThreadId, materialized: boolean, ephemeral: boolean): ThreadReadState | null {
  return materialized && !ephemeral ? ctx.store.readStates.get(threadId) : null;
}
