// `thread/revert`: a paginated thread loaded here drops a turn and every later one, as codex
// 0.171.0 does it (test/fixtures/reference-answers/thread-revert.jsonl). The reference unloads
// the thread and loads it again on a new rollout file whose history base is what is kept
// (src/actors/rollout-writer/revert-rollout.ts); so does this host: a running turn is
// interrupted first, the thread unloaded (`notLoaded`, no `thread/closed`), then loaded on the
// new file by a fresh actor that writes its first line and reads it back as a cold resume
// would, under the spawn's deadline, and given back to its subscribers (`idle`, then
// `thread/reverted`). Reads and the model then see only the kept turns. A turn the thread does
// not hold is refused after the same unload and reload, as the reference does. On the
// PostgreSQL store the reloaded thread's actor replaces its rows, as their owner, with what the
// files store's reader sees of the new file (src/common/postgres/reverted-history.ts).
import type { Connection } from '../connections.js';
import type { HistoryLocation } from '../../common/history-location.js';
import { invalidRequest, threadNotFound } from '../../common/errors.js';
import type { PostedResumeState, RevertRequest } from '../../common/actor-messages.js';
import type { HostContext } from '../host-context.js';
import type { threadRevertParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { loadedThreadView } from '../protocol/thread-view.js';
import { withPlacedActor } from '../threads/actor-link.js';
import { LoadedThread } from '../threads/loaded-thread.js';
import { afterHistoryLoaded } from '../threads/pending-load.js';
import { loadThread } from '../threads/thread-loader.js';
import { publishLoaded } from '../threads/thread-publication.js';
import { resolveSession } from '../threads/thread-settings.js';
import { waitUntil } from '../wait-until.js';
import { withThreadFacts } from './shown-thread.js';
import { backwardsCursors } from './thread-resume.js';

type Params = ReturnType<typeof threadRevertParams>;

export async function threadRevert(ctx: HostContext, _connection: Connection, params: Params): Promise<unknown> {
  const id = requireThreadId(params.threadId);
  return afterHistoryLoaded(ctx, id, () => {
    const thread = ctx.directory.get(id);
    // Only a thread loaded in this process is reverted: one loaded elsewhere, or only stored, is not found.
    if (thread?.lifecycle.kind !== 'loaded' || !thread.identity || thread.identity.ephemeral) throw threadNotFound(id);
    if (thread.historyMode !== 'paginated') throw invalidRequest('thread/revert only supports paginated threads');
    return thread.mailbox.post(() => revert(ctx, thread, params.beforeTurnId));
  });
}

async function revert(ctx: HostContext, thread: LoadedThread, beforeTurnId: string): Promise<unknown> {
  if (thread.lifecycle.kind !== 'loaded') throw threadNotFound(thread.id);
  // A thread with no rollout yet has no turn to revert, and no file to load again.
  if (!thread.materialized) throw invalidRequest(`turn not found: ${beforeTurnId}`);
  await interruptTurns(ctx, thread);
  const cut = thread.turns.findIndex((turn) => turn.id === beforeTurnId);
  const kept = new Set(thread.turns.slice(0, cut === -1 ? thread.turns.length : cut).map((turn) => turn.id));
  const previous = thread.identity!.history;
  if (previous === null) throw invalidRequest(`turn not found: ${beforeTurnId}`);
  if (cut === -1) {
    await reload(ctx, thread, previous, undefined);
    throw invalidRequest(`turn not found: ${beforeTurnId}`);
  }
  const target = ctx.store.threads.revertTarget(thread.id, previous, ctx.clock.now());
  const reloaded = await reload(ctx, thread, target.history, { ...target.request, beforeTurnId });
  const readState = ctx.store.readStates.reverted(thread.id, kept, ctx.clock.now());
  if (readState !== null) ctx.outgoing.broadcast('thread/readState/changed', { threadId: thread.id, readState });
  ctx.outgoing.broadcast('thread/status/changed', { threadId: thread.id, status: { type: 'idle' } });
  ctx.outgoing.broadcast('thread/reverted', { threadId: thread.id });
  const { history } = reloaded.state;
  return {
    thread: withThreadFacts(ctx, loadedThreadView(reloaded.thread, [])),
    ...backwardsCursors(reloaded.thread, { turn: history.lastTurnOrdinal, item: history.lastItemOrdinal }),
  };
}

// The reference interrupts a running turn before it replaces the history; its end (and the
// client's turn/completed) comes first. Turns accepted and not begun end interrupted too. One
// that has not ended by the spawn deadline is left to the unload, which closes its actor under
// its own deadline.
async function interruptTurns(ctx: HostContext, thread: LoadedThread): Promise<void> {
  if (thread.pendingTurns === 0) return;
  for (const turn of thread.turns) {
    if (turn.status !== 'inProgress') continue;
    withPlacedActor(ctx, thread, (link) => void link.api.interrupt(thread.id, turn.id).catch(() => undefined), () => undefined);
  }
  await waitUntil(() => thread.pendingTurns === 0, ctx.actorSpawnTimeoutMs);
}

/**
 * Unloads `thread` and loads it again from `history` (for a revert, after its actor wrote the
 * new file's first line), with the settings it ran with, for the connections subscribed to it.
 */
async function reload(
  ctx: HostContext,
  thread: LoadedThread,
  history: HistoryLocation,
  revert: RevertRequest | undefined,
): Promise<{ thread: LoadedThread; state: PostedResumeState }> {
  const subscribers = [...thread.subscribers];
  const settings = thread.settings!;
  const identity = thread.identity!;
  await ctx.supervisor.unload(thread, 'reverted');
  // Another request that loaded the thread in the meantime keeps it.
  if (ctx.directory.get(thread.id) !== undefined) throw threadNotFound(thread.id);
  const fresh = new LoadedThread(thread.id, ctx.clock.now());
  ctx.directory.register(fresh);
  const session = resolveSession(ctx, {
    model: settings.model,
    modelProvider: null,
    cwd: settings.cwd,
    approvalPolicy: settings.approvalPolicy,
    approvalsReviewer: settings.approvalsReviewer,
    sandbox: settings.sandboxMode,
    config: null,
    baseInstructions: settings.baseInstructions,
    developerInstructions: settings.developerInstructions,
  });
  const state = await loadThread(ctx, fresh, {
    session,
    history,
    resume: true,
    serializeHistory: false,
    createdAtMs: ctx.clock.now(),
    originator: identity.originator,
    operation: 'resume',
    historyMode: 'paginated',
    ...(revert === undefined ? {} : { revert }),
  });
  if (state === null) throw new Error('a reloaded thread read no history');
  ctx.store.threads.historyMoved(fresh.id, history);
  // The preview stays the thread's first message, even when no turn is kept (thread-preview.ts).
  publishLoaded(ctx, fresh, state, { cwd: settings.cwd, model: settings.model }, subscribers);
  if (revert === undefined) ctx.outgoing.broadcast('thread/status/changed', { threadId: fresh.id, status: { type: 'idle' } });
  return { thread: fresh, state };
}
