// `thread/unsubscribe` and `thread/loaded/list`: answered from the main thread's directory,
// in memory, never waiting on a worker or a lock.
import type { Connection } from '../connections.js';
import { invalidRequest } from '../errors.js';
import type { HostContext } from '../host-context.js';
import type { threadIdParams, threadLoadedListParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { parseUuid } from '../protocol/uuid.js';
import { afterPendingLoad } from '../threads/pending-load.js';

export type UnsubscribeStatus = 'unsubscribed' | 'notSubscribed' | 'notLoaded';

export function threadUnsubscribe(
  ctx: HostContext,
  connection: Connection,
  params: ReturnType<typeof threadIdParams>,
): { status: UnsubscribeStatus } | Promise<{ status: UnsubscribeStatus }> {
  const id = requireThreadId(params.threadId);
  return afterPendingLoad(ctx, id, () => unsubscribeNow(ctx, connection, id));
}

function unsubscribeNow(ctx: HostContext, connection: Connection, id: string): { status: UnsubscribeStatus } {
  const thread = ctx.directory.get(id);
  if (!thread || (thread.lifecycle.kind !== 'loaded' && thread.lifecycle.kind !== 'unloading')) return { status: 'notLoaded' };
  if (!thread.unsubscribe(connection.id, ctx.clock.now())) return { status: 'notSubscribed' };
  ctx.supervisor.noteChanged(thread);
  return { status: 'unsubscribed' };
}

export function threadLoadedList(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof threadLoadedListParams>,
): { data: string[]; nextCursor: string | null } {
  // The reference answers an empty list before it looks at the cursor.
  if (ctx.directory.loadedCount === 0) return { data: [], nextCursor: null };
  if (params.cursor !== null && !parseUuid(params.cursor).ok) throw invalidRequest(`invalid cursor: ${params.cursor}`);
  return ctx.directory.page(params.cursor, params.limit);
}

/** Drops every subscription of a closed connection; threads left alone start their idle countdown. */
export function dropConnection(ctx: HostContext, connection: Connection): void {
  const now = ctx.clock.now();
  for (const thread of ctx.directory.subscribedBy(connection.id)) {
    thread.unsubscribe(connection.id, now);
    ctx.supervisor.noteChanged(thread);
  }
}
