// `thread/delete`, as codex 0.171.0 answers it (test/fixtures/reference-answers/thread-delete.jsonl)
// and what it removes: a thread loaded here is unloaded first (`notLoaded`, no `thread/closed`);
// then, holding the thread's writer lock, its rollout is removed, live or archived, and its
// lines leave session_index.jsonl, and its queued input (thread-queues/) goes. A thread another process has loaded gets "already has an
// active writer"; an id with no rollout "no rollout found", unless it was loaded here (a thread
// never written has nothing on disk to remove). Everyone hears `thread/deleted` after the reply.
// The reference also removes the thread from its state and queue databases: so does the mirror
// into them (store/files/codex-state-mirror.ts), when it is on.
// On the PostgreSQL store the thread's rows go, under its ownership (thread-changes.ts); the
// thread store removes either; what thread-host keeps of it in the home goes on both.
import type { Connection } from '../connections.js';
import { noRolloutFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { AfterReply } from '../methods.js';
import type { threadIdParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { afterPendingLoad } from '../threads/pending-load.js';
import { withBriefWriterLock } from '../threads/brief-writer-lock.js';
import type { WriterLock } from '../store/writer-lock-backend.js';

export async function threadDelete(ctx: HostContext, _connection: Connection, params: ReturnType<typeof threadIdParams>, afterReply: AfterReply): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  await afterPendingLoad(ctx, id, () => undefined);
  const loaded = ctx.directory.get(id);
  if (loaded !== undefined) await ctx.supervisor.unload(loaded, 'deleted');
  const stored = (await ctx.store.threads.locate(id)) ?? (await ctx.store.threads.locateArchived(id));
  if (stored === null && loaded === undefined) throw noRolloutFound(id);
  const remove = async (lock: WriterLock | null) => {
    await ctx.store.threads.remove(id, lock);
    await ctx.store.metadata.forget(id, ctx.clock.now());
    await ctx.store.readStates.forget(id, ctx.clock.now());
    await ctx.store.queues.remove(id);
    ctx.store.threads.forgotten(id);
  };
  // An ephemeral thread has no history in any store, so no writer could race its removal (and
  // the PostgreSQL store holds no row of it to own): only what the host keeps of it goes.
  if (stored === null && loaded?.identity?.ephemeral === true) await remove(null);
  else await withBriefWriterLock(ctx, id, remove);
  afterReply(() => ctx.outgoing.broadcast('thread/deleted', { threadId: id }));
  return {};
}
