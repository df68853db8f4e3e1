// `turn/start` and `turn/interrupt`. A turn is answered at once with its in-progress shape;
// the actor runs it and its events flow back through turn-events.ts. Nothing here awaits
// the worker, not even a new thread's actor still being placed: commands are posted (after
// the placement, actor-link.ts) and a failure to deliver one ends the turn with an error.
import type { PostedTurnCommand } from '../../common/actor-messages.js';
import { isLargeInput, postedInput } from '../../common/encoded-content.js';
import type { Turn, TurnId } from '../../common/wire-types.js';
import type { Connection } from '../connections.js';
import { invalidRequest, threadNotFound } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { turnInterruptParams, turnStartParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { takeTextUtf8 } from '../protocol/user-input.js';
import { uuidv7 } from '../protocol/uuid.js';
import { hasActor, withPlacedActor } from '../threads/actor-link.js';
import { afterHistoryLoaded } from '../threads/pending-load.js';
import { failTurnLocally } from '../threads/turn-events.js';
import { joinableTurn, joinTurn } from './turn-steer.js';
import { acceptedTurn, requireLoaded } from './loaded-turn-lookup.js';

type TurnStartParams = ReturnType<typeof turnStartParams>;

export function turnStart(ctx: HostContext, _connection: Connection, params: TurnStartParams): { turn: Turn } | Promise<{ turn: Turn }> {
  const id = requireThreadId(params.threadId);
  return afterHistoryLoaded(ctx, id, () => startNow(ctx, id, params));
}

function startNow(ctx: HostContext, id: string, params: TurnStartParams): { turn: Turn } {
  const thread = requireLoaded(ctx, id);
  if (!hasActor(ctx, thread)) throw threadNotFound(id);
  // The model is given images inline only, as the reference refuses a turn with a linked one
  // (its scheme in any case, as the reference reads it).
  if (params.input.some((part) => part.type === 'image' && part.url.slice(0, 5).toLowerCase() !== 'data:')) {
    throw invalidRequest('remote image URLs are not supported; use an inline data URL instead');
  }
  // As in the reference, input sent while a turn is in progress joins it (turn-steer.ts); after
  // a compaction, which takes none, it waits its turn.
  const running = joinableTurn(thread);
  if (running !== null) {
    joinTurn(ctx, thread, running, params.input, params.clientUserMessageId);
    return { turn: acceptedTurn(running.id as TurnId) };
  }
  const now = ctx.clock.now();
  // Per-turn overrides stick for later turns, as the reference documents them.
  const settings = {
    ...thread.settings!,
    ...(params.model !== null ? { model: params.model } : {}),
    ...(params.effort !== null ? { effort: params.effort } : {}),
    ...(params.cwd !== null ? { cwd: params.cwd } : {}),
    ...(params.approvalPolicy !== null ? { approvalPolicy: params.approvalPolicy } : {}),
    ...(params.approvalsReviewer !== null ? { approvalsReviewer: params.approvalsReviewer } : {}),
    // The thread's servers as they are now: config/mcpServer/reload may have added or removed them all.
    hostTools: ctx.mcp.offersTools(id),
  };
  const turnId = uuidv7(now) as TurnId;
  const turn = acceptedTurn(turnId);
  // Like the reference, an ephemeral thread keeps an empty preview.
  thread.turnAccepted({ ...turn, items: [] }, settings, now, () => previewOf(params.input), isLargeInput(params.input) ? params.input : null);
  ctx.supervisor.noteChanged(thread);
  // A large text parsed off the main thread goes on to the worker as the bytes it came in,
  // transferred, instead of being cloned on this thread (bench case `huge-line`).
  const posted = postedInput(params.input, takeTextUtf8);
  const command: PostedTurnCommand = {
    turnId,
    userItemId: uuidv7(now),
    clientId: params.clientUserMessageId,
    input: posted.input,
    settings,
    outputSchema: params.outputSchema,
  };
  withPlacedActor(
    ctx,
    thread,
    (link) => void link.api.startTurn(id, posted.transfer.length === 0 ? command : ctx.pool.transfer(command, posted.transfer)).catch((error: unknown) => failTurnLocally(ctx, thread, turnId, `could not start the turn: ${String(error)}`)),
    () => failTurnLocally(ctx, thread, turnId, "could not start the turn: the thread's actor could not be placed"),
  );
  return { turn };
}

export function turnInterrupt(
  ctx: HostContext,
  _connection: Connection,
  params: ReturnType<typeof turnInterruptParams>,
): Record<string, never> | Promise<Record<string, never>> {
  const id = requireThreadId(params.threadId);
  return afterHistoryLoaded(ctx, id, () => interruptNow(ctx, id, params.turnId));
}

function interruptNow(ctx: HostContext, id: string, turnId: string): Record<string, never> {
  const thread = requireLoaded(ctx, id);
  const turn = thread.findTurn(turnId);
  if (!turn || turn.status !== 'inProgress') throw invalidRequest('no active turn to interrupt');
  // A queued turn that never started is interrupted by the actor when it reaches it; one still
  // waiting for the actor's placement is followed by this command.
  withPlacedActor(ctx, thread, (link) => void link.api.interrupt(id, turnId).catch(() => undefined), () => undefined);
  // What the turn asked its clients is cancelled: each call is answered as cancelled, and the
  // interrupted turn records those answers before it ends (running-turn.ts).
  ctx.serverRequests.cancelTurn(id, turnId);
  // Its commands are ended too (their process groups), and answered as interrupted.
  ctx.shell.cancelTurn(id, turnId);
  return {};
}


/** The first text of the input, trimmed (the reference shows `"  hi  "` as `"hi"`). */
function previewOf(input: TurnStartParams['input']): string {
  for (const part of input) if (part.type === 'text') return part.text.trim();
  return '';
}
