// `turn/steer`, and `turn/start` while a turn is in progress: the input joins that turn, as the
// reference does (the answer names the turn; the input comes back as a user item of it, and
// the model is asked again with it). Checked from the transcript, answered at once; the actor
// gets the input without anyone waiting (actor-link.ts). A compaction's turn takes no input.
import type { SteerCommand } from '../../common/actor-messages.js';
import { invalidRequest } from '../../common/errors.js';
import type { Turn, UserInput } from '../../common/wire-types.js';
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { turnSteerParams } from '../protocol/turn-control-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { uuidv7 } from '../protocol/uuid.js';
import { withPlacedActor } from '../threads/actor-link.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import { afterHistoryLoaded } from '../threads/pending-load.js';
import { requireLoaded } from './loaded-turn-lookup.js';

export function turnSteer(ctx: HostContext, _connection: Connection, params: ReturnType<typeof turnSteerParams>): { turnId: string } | Promise<{ turnId: string }> {
  const id = requireThreadId(params.threadId);
  return afterHistoryLoaded(ctx, id, () => {
    const thread = requireLoaded(ctx, id);
    const active = thread.activeTurn;
    if (active === null) throw invalidRequest('no active turn to steer');
    if (active.id !== params.expectedTurnId) throw invalidRequest(`expected active turn id \`${params.expectedTurnId}\` but found \`${active.id}\``);
    if (params.input.length === 0) throw invalidRequest('input must not be empty');
    if (!thread.isJoinable(active.id)) throw invalidRequest('active turn is not steerable');
    joinTurn(ctx, thread, active, params.input, params.clientUserMessageId);
    return { turnId: active.id };
  });
}

/** The turn new input joins: the active one, unless none is, or it is a compaction. */
export function joinableTurn(thread: LoadedThread): Turn | null {
  const active = thread.activeTurn;
  return active === null || !thread.isJoinable(active.id) ? null : active;
}

/** Sends `input` to the actor, to join `turn`. */
export function joinTurn(ctx: HostContext, thread: LoadedThread, turn: Turn, input: UserInput[], clientId: string | null): void {
  const command: SteerCommand = { turnId: turn.id, userItemId: uuidv7(ctx.clock.now()), clientId, input };
  const warn = (error: unknown) => ctx.log('warn', 'steered input could not reach the actor', { threadId: thread.id, turnId: turn.id, error: String(error) });
  withPlacedActor(ctx, thread, (link) => void link.api.steerTurn(thread.id, command).catch(warn), () => warn('no actor'));
}
