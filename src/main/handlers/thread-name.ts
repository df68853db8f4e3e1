// `thread/name/set`: names a thread, loaded or stored, as the reference does: the name is
// trimmed and must not be empty, an id with no thread is "no rollout found", and the
// thread's subscribers hear `thread/name/updated` after the reply. The name is durable in the
// thread store (session_index.jsonl, see thread-names.ts; or the PostgreSQL store's threads
// table) before the reply, so it survives an unload and a restart, and thread objects show it
// wherever they are read.
import type { Connection } from '../connections.js';
import { invalidRequest, noRolloutFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { AfterReply } from '../methods.js';
import type { threadSetNameParams } from '../protocol/discovery-params.js';
import { requireThreadId } from '../protocol/thread-id.js';

export async function threadNameSet(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof threadSetNameParams>,
  afterReply: AfterReply,
): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  const name = params.name.trim();
  if (name === '') throw invalidRequest('thread name must not be empty');
  if (ctx.directory.get(id) === undefined && (await ctx.store.threads.locate(id)) === null) throw noRolloutFound(id);
  await ctx.store.threads.setName(id, name, ctx.clock.now());
  afterReply(() => {
    const subscribers = ctx.directory.get(id)?.subscribers;
    if (subscribers) ctx.outgoing.notifyMany(subscribers, 'thread/name/updated', { threadId: id, threadName: name });
  });
  return {};
}
