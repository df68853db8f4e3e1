// `thread/archive` and `thread/unarchive`, as codex 0.171.0 answers them
// (test/fixtures/reference-answers/thread-archive.jsonl) and lays them out on disk
// (history/archived-rollouts.ts):
//   - archive: a thread loaded here is unloaded first (`notLoaded`, no `thread/closed`); then,
//     holding the thread's writer lock, its rollout moves to archived_sessions/. A thread
//     another process has loaded gets that process's lock, hence "already has an active
//     writer"; an id with no live rollout (unknown, or archived already) "no rollout found".
//     Everyone hears `thread/archived` after the reply.
//   - unarchive: the rollout moves back; the answer is the thread as a read shows it, and
//     everyone hears `thread/unarchived`. "no archived rollout found" when there is none.
// The archive is the directory itself, so it survives unloads and restarts, and the reference
// reading the same home sees the same threads archived. On the PostgreSQL store it is the
// thread's archived_at, set under the thread's ownership (a thread another host has loaded is
// that host's, hence the same "active writer"); the thread store makes either change.
import type { Connection } from '../connections.js';
import { invalidRequest, noRolloutFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { AfterReply } from '../methods.js';
import type { threadIdParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { afterPendingLoad } from '../threads/pending-load.js';
import { withBriefWriterLock } from '../threads/brief-writer-lock.js';
import { storedThreadRead } from './shown-thread.js';

type Params = ReturnType<typeof threadIdParams>;

export async function threadArchive(ctx: HostContext, _connection: Connection, params: Params, afterReply: AfterReply): Promise<unknown> {
  const id = requireThreadId(params.threadId, 'session id');
  await afterPendingLoad(ctx, id, () => undefined);
  const loaded = ctx.directory.get(id);
  if (loaded !== undefined) {
    // Never written: no rollout to move (the reference would write its session_meta first).
    if (!loaded.materialized) throw noRolloutFound(id);
    await ctx.supervisor.unload(loaded, 'archived');
  }
  if ((await ctx.store.threads.locate(id)) === null) throw noRolloutFound(id);
  await withBriefWriterLock(ctx, id, (lock) => ctx.store.threads.archive(id, lock));
  afterReply(() => ctx.outgoing.broadcast('thread/archived', { threadId: id }));
  return {};
}

export async function threadUnarchive(ctx: HostContext, _connection: Connection, params: Params, afterReply: AfterReply): Promise<unknown> {
  const id = requireThreadId(params.threadId, 'session id');
  const location = await ctx.store.threads.unarchive(id, ctx.clock.now());
  if (location === null) throw invalidRequest(`no archived rollout found for thread id ${id}`);
  const answer = await ctx.storedHistory.read(storedThreadRead(ctx, id, location, false), 'thread/unarchive');
  if (answer.kind === 'noRollout') throw noRolloutFound(id);
  afterReply(() => ctx.outgoing.broadcast('thread/unarchived', { threadId: id }));
  return answer.result;
}
