// `thread/unsubscribe`, and the same for every thread at once when a connection closes:
// answered from the main thread's directory, in memory, never waiting on a worker or a lock.
// A thread left without subscribers starts its idle countdown.
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { threadIdParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
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

/** Drops every subscription of a closed connection; threads left alone start their idle countdown. */
export function dropConnection(ctx: HostContext, connection: Connection): void {
  const now = ctx.clock.now();
  for (const thread of ctx.directory.subscribedBy(connection.id)) {
    thread.unsubscribe(connection.id, now);
    ctx.supervisor.noteChanged(thread);
  }
  ctx.serverRequests.connectionClosed(connection.id);
  // Its command/exec processes are its own: they go with it, as the reference's do.
  ctx.shell.exec.connectionClosed(connection.id);
}
