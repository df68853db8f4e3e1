// Commands for a loaded thread's actor. A new thread is answered before its actor is placed
// (thread-loader.ts), so a command for it may come first: it is sent once the placement has
// settled, after the commands that came before it (each waits on the same promise, and its
// reactions run in the order they were added), never awaited by the request that sent it.
import type { HostContext } from '../host-context.js';
import type { WorkerLink } from '../pool/worker-link.js';
import type { LoadedThread } from './loaded-thread.js';

/** Calls `send` with the thread's worker now, or once its actor is placed; `missing` when it has none then. */
export function withPlacedActor(ctx: HostContext, thread: LoadedThread, send: (link: WorkerLink) => void, missing: () => void): void {
  const now = (): void => {
    // A thread already closing takes no more commands (a placement that failed unloads it).
    const link = thread.lifecycle.kind === 'loaded' ? ctx.pool.linkOf(thread.id) : undefined;
    if (link) send(link);
    else missing();
  };
  if (thread.actorPlacement === null) now();
  else void thread.actorPlacement.then(now);
}

/** Whether the thread has an actor, or one on the way. */
export function hasActor(ctx: HostContext, thread: LoadedThread): boolean {
  return thread.actorPlacement !== null || ctx.pool.linkOf(thread.id) !== undefined;
}
