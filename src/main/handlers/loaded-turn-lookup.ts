// What the turn handlers (turn.ts, turn-steer.ts, thread-compact.ts) share: the loaded thread a
// request names, and a turn as its start is answered.
import { threadNotFound } from '../../common/errors.js';
import type { Turn, TurnId } from '../../common/wire-types.js';
import type { HostContext } from '../host-context.js';
import type { LoadedThread } from '../threads/loaded-thread.js';

/** The loaded thread `id`; "thread not found" for any other. */
export function requireLoaded(ctx: HostContext, id: string): LoadedThread {
  const thread = ctx.directory.get(id);
  if (!thread || thread.lifecycle.kind !== 'loaded') throw threadNotFound(id);
  return thread;
}

/** A turn as its start is answered: in progress, nothing known about it yet. */
export function acceptedTurn(turnId: TurnId): Turn {
  return { id: turnId, rootTurnId: turnId, items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: null, completedAt: null, durationMs: null };
}
