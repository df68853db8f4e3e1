// What the host does when a writer lock it held is compromised (lockfile backend: the heartbeat
// could not refresh the lock directory, or found another host's mtime on it). The thread may
// already have another writer, so in this order, all synchronously:
//   1. tell the actor to stop writing (the revoke is posted before any other command, and the
//      appender refuses every write not yet issued);
//   2. fail the running turn with a clear error (its end can no longer be recorded);
//   3. warn the subscribers, naming the reason;
//   4. unload with reason 'lockLost' (the unloader announces notLoaded and thread/closed).
import type { HostContext } from '../host-context.js';
import type { LockLoss } from '../store/writer-lock-backend.js';
import { failTurnLocally } from './turn-events.js';

/** Stops, fails, warns and unloads the thread whose lock was lost. A thread already going is left alone. */
export function unloadThreadOfLostLock(ctx: HostContext, loss: LockLoss): void {
  const thread = ctx.directory.get(loss.threadId);
  if (!thread || thread.lifecycle.kind === 'unloading' || thread.lifecycle.kind === 'unloaded') return;
  const why = `the writer lock of thread ${thread.id} was lost (${loss.message}); another host may be writing it now`;
  ctx.pool
    .linkOf(thread.id)
    ?.api.revokeWriter(thread.id, `${why}; nothing more is written here`)
    .catch((error: unknown) => ctx.log('warn', 'revoking the writer failed', { threadId: thread.id, error: String(error) }));
  for (const turn of thread.turns) {
    if (turn.status === 'inProgress') failTurnLocally(ctx, thread, turn.id, `${why}; resume the thread to continue`);
  }
  ctx.outgoing.notifyMany(thread.subscribers, 'warning', { threadId: thread.id, message: `thread unloaded (lockLost): ${why}` });
  void ctx.supervisor.unload(thread, 'lockLost');
}
