// `thread/compact/start`: answered `{}` at once, like the reference; the compaction then runs as
// a turn of its own (turn/started, a contextCompaction item, turn/completed), in the thread's
// actor, which asks the thread's model for a summary and replaces the conversation with it
// (common/history/compaction.ts). As in the reference, a compaction replaces a running turn:
// that turn is interrupted. Nothing here waits for the worker.
import type { TurnId } from '../../common/wire-types.js';
import type { Connection } from '../connections.js';
import { threadNotFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadCompactStartParams } from '../protocol/turn-control-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { uuidv7 } from '../protocol/uuid.js';
import { hasActor, withPlacedActor } from '../threads/actor-link.js';
import { afterHistoryLoaded } from '../threads/pending-load.js';
import { failTurnLocally } from '../threads/turn-events.js';
import { acceptedTurn, requireLoaded } from './loaded-turn-lookup.js';

export function threadCompactStart(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof threadCompactStartParams>,
): Record<string, never> | Promise<Record<string, never>> {
  const id = requireThreadId(params.threadId);
  return afterHistoryLoaded(ctx, id, () => compactNow(ctx, id));
}

function compactNow(ctx: HostContext, id: string): Record<string, never> {
  const thread = requireLoaded(ctx, id);
  if (!hasActor(ctx, thread)) throw threadNotFound(id);
  for (const running of thread.turns) {
    if (running.status !== 'inProgress') continue;
    withPlacedActor(ctx, thread, (link) => void link.api.interrupt(id, running.id).catch(() => undefined), () => undefined);
  }
  const now = ctx.clock.now();
  const turnId = uuidv7(now) as TurnId;
  const turn = acceptedTurn(turnId);
  thread.compactionAccepted(turn, now);
  ctx.supervisor.noteChanged(thread);
  const command = { turnId, itemId: uuidv7(now), settings: thread.settings! };
  withPlacedActor(
    ctx,
    thread,
    (link) => void link.api.startCompaction(id, command).catch((error: unknown) => failTurnLocally(ctx, thread, turnId, `could not compact the thread: ${String(error)}`)),
    () => failTurnLocally(ctx, thread, turnId, "could not compact the thread: the thread's actor could not be placed"),
  );
  return {};
}
