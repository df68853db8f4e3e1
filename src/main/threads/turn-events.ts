// Maps actor events to the thread's event-named methods (loaded-thread.ts, which alone changes
// its state) and to protocol notifications, in the order the reference sends them (protocol §4.1):
//   status active → turn/started → user item started/completed → agent item started →
//   deltas → agent item completed → tokenUsage → status idle|systemError → [error] →
//   turn/completed
// (a compaction's turn has the compaction's item started/completed instead of the messages)
// Turn and item events go to the thread's subscribers; status changes to everyone.
import type { ActorEvent } from '../../common/actor-messages.js';
import type { LoadedThread } from './loaded-thread.js';
import type { TurnEnd } from './thread-facts.js';
import type { ThreadItem, Turn, UserInput } from '../../common/wire-types.js';
import type { HostContext } from '../host-context.js';
import { tokenUsageView } from '../../common/token-usage.js';
import { bufferView } from '../../common/encoded-content.js';
import { EncodedJson } from '../protocol/encoded-json.js';
import { answerHostTools, routeToolCall } from '../tools/tool-call-router.js';

export function handleActorEvent(ctx: HostContext, event: ActorEvent): void {
  const thread = ctx.directory.get(event.threadId);
  if (!thread || thread.lifecycle.kind === 'unloaded' || thread.lifecycle.kind === 'loading') return;
  const out = ctx.outgoing;
  const toSubscribers = (method: string, params: unknown) => out.notifyMany(thread.subscribers, method, params);
  switch (event.type) {
    case 'turnStarted':
      startTurn(ctx, thread, event.turnId, event.startedAtMs, event.ordinal);
      return;
    case 'materialized':
      thread.rolloutMaterialized();
      ctx.store.threads.materialized(thread.id, event.path);
      return;
    case 'writerFenced':
      // The store refused the actor's append: the thread is another host's now.
      ctx.lockLost({ threadId: thread.id, message: event.message });
      return;
    case 'userItem': {
      // A large input comes back only encoded: the transcript keeps the input this thread sent.
      const item = event.contentJson === undefined ? event.item : { ...event.item, content: largeInputOf(ctx, thread, event.turnId, event.contentJson) };
      thread.userItemRecorded(event.turnId, item, event.ordinal);
      const base = { threadId: thread.id, turnId: event.turnId };
      // The echoes carry the input's encoding when the worker made one.
      const echoed = event.contentJson === undefined ? item : { ...item, content: EncodedJson.of(event.contentJson) };
      toSubscribers('item/started', { item: { ...echoed, completedAtMs: null }, ...base, startedAtMs: item.startedAtMs });
      toSubscribers('item/completed', { item: echoed, ...base, contentTokenCount: null, completedAtMs: item.completedAtMs });
      return;
    }
    case 'agentItemStarted':
      thread.agentItemStarted(event.turnId, event.item);
      toSubscribers('item/started', startedItem(thread, event.turnId, event.item));
      return;
    case 'agentDelta':
      thread.agentDeltaAppended(event.turnId, event.delta);
      toSubscribers('item/agentMessage/delta', { threadId: thread.id, turnId: event.turnId, itemId: event.itemId, delta: event.delta });
      return;
    case 'agentItemCompleted':
      thread.agentItemCompleted(event.turnId, event.item, event.ordinal);
      toSubscribers('item/completed', completedItem(thread, event.turnId, event.item));
      return;
    case 'compactionStarted':
    case 'compactionCompleted': {
      const started = event.type === 'compactionStarted';
      if (started) thread.compactionItemStarted(event.turnId, event.item);
      else thread.compactionItemCompleted(event.turnId, event.item, event.ordinal);
      toSubscribers(started ? 'item/started' : 'item/completed', (started ? startedItem : completedItem)(thread, event.turnId, event.item));
      return;
    }
    case 'tokenUsage':
      thread.tokenUsageUpdated(event.usage);
      toSubscribers('thread/tokenUsage/updated', {
        threadId: thread.id,
        turnId: event.turnId,
        tokenUsage: tokenUsageView(event.usage),
      });
      return;
    case 'toolCall':
      routeToolCall(ctx, thread, event.turnId, event.call, event.startedAtMs);
      return;
    case 'hostToolsAsked':
      answerHostTools(ctx, thread, event.turnId);
      return;
    case 'turnRecorded':
      thread.turnRecorded(event.turnId, event.ordinal);
      return;
    case 'toolItemRecorded':
      thread.toolItemRecorded(event.turnId, event.itemId, event.ordinal);
      return;
    case 'warning':
      ctx.log('warn', event.message, { threadId: thread.id });
      toSubscribers('warning', { threadId: thread.id, message: event.message });
      return;
    case 'retrying':
      ctx.log('warn', 'model request retrying', { threadId: thread.id, turnId: event.turnId, detail: event.message });
      return;
    case 'turnEnded':
      ctx.log(event.status === 'failed' ? 'warn' : 'info', 'turn ended', {
        threadId: thread.id,
        turnId: event.turnId,
        status: event.status,
        durationMs: event.durationMs,
        ...(event.error ? { error: event.error.message } : {}),
      });
      endTurn(ctx, thread, event.turnId, { status: event.status, error: event.error, completedAtMs: event.completedAtMs, durationMs: event.durationMs }, event.persisted);
      if (!event.persisted) ctx.log('error', 'turn could not be written to the rollout', { threadId: thread.id, turnId: event.turnId });
      return;
  }
}

/** `item/started`'s params for an item of the actor's. */
function startedItem(thread: LoadedThread, turnId: string, item: ThreadItem): Record<string, unknown> {
  return { item, threadId: thread.id, turnId, startedAtMs: item.startedAtMs };
}

/** `item/completed`'s params for an item of the actor's. */
function completedItem(thread: LoadedThread, turnId: string, item: ThreadItem): Record<string, unknown> {
  return { item, threadId: thread.id, turnId, contentTokenCount: null, completedAtMs: item.completedAtMs };
}

/**
 * A pool worker died with these threads' actors: their running turns fail with a clear error
 * and the threads unload (a later thread/resume rebuilds them from their rollouts).
 */
export function unloadThreadsOfLostWorker(ctx: HostContext, threadIds: string[]): void {
  for (const id of threadIds) {
    const thread = ctx.directory.get(id);
    if (!thread) continue;
    for (const turn of thread.turns) {
      if (turn.status === 'inProgress') failTurnLocally(ctx, thread, turn.id, 'the worker hosting this thread exited; resume the thread to continue');
    }
    void ctx.supervisor.unload(thread, 'workerLost');
  }
}

/** A turn the host runs itself (thread/shellCommand) starts: the notices an actor's start gets. */
export function startTurnLocally(ctx: HostContext, thread: LoadedThread, turnId: string, startedAtMs: number): boolean {
  return startTurn(ctx, thread, turnId, startedAtMs, null);
}

/** A turn the host runs itself ended. */
export function endTurnLocally(ctx: HostContext, thread: LoadedThread, turnId: string, end: TurnEnd): void {
  endTurn(ctx, thread, turnId, end);
}

function startTurn(ctx: HostContext, thread: LoadedThread, turnId: string, startedAtMs: number, ordinal: number | null): boolean {
  const turn = thread.turnStarted(turnId, startedAtMs, ordinal);
  if (!turn) return false;
  ctx.recorder.turnStarted();
  ctx.outgoing.broadcast('thread/status/changed', { threadId: thread.id, status: thread.status });
  ctx.outgoing.notifyMany(thread.subscribers, 'turn/started', { threadId: thread.id, turn: { ...turn, items: [], itemsView: 'notLoaded' } });
  return true;
}

/** Ends a turn the actor can no longer report on (its worker is gone or refused the command). */
export function failTurnLocally(ctx: HostContext, thread: LoadedThread, turnId: string, message: string): void {
  const turn = thread.findTurn(turnId);
  if (!turn || turn.status !== 'inProgress') return;
  ctx.log('warn', 'turn ended', { threadId: thread.id, turnId, status: 'failed', error: message });
  const now = ctx.clock.now();
  const startedMs = (turn.startedAt ?? Math.floor(now / 1000)) * 1000;
  const error = { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null } as const;
  endTurn(ctx, thread, turnId, { status: 'failed', error, completedAtMs: now, durationMs: now - startedMs });
}

// `persisted`: the turn's last lines are stored, and with them, on a store that keeps read
// states, the read receipt this end publishes (the actor's end of the turn).
function endTurn(ctx: HostContext, thread: LoadedThread, turnId: string, end: TurnEnd, persisted = false): void {
  const turn = thread.turnEnded(turnId, end, ctx.clock.now());
  if (turn === null) return;
  // Nothing the turn asked its clients is waited for any more.
  ctx.serverRequests.cancelTurn(thread.id, turnId);
  ctx.shell.cancelTurn(thread.id, turnId);
  const diff = ctx.shell.takeTurnDiff(thread.id, turnId)?.lastDiff ?? null;
  ctx.recorder.turnEnded(end.status, end.durationMs);
  const { error } = end;
  const out = ctx.outgoing;
  // The reference publishes a completed turn's read state before the status change, a failed
  // one's after the error, and none for an interrupted turn (thread-read-state.jsonl), a
  // compaction (compaction.jsonl) or a user-shell turn (captures-40/s7-command-exec).
  const publishes = !isCompaction(turn) && !isUserShell(turn);
  // A completed turn that patched files ends with its whole diff once more, as the reference's.
  if (diff !== null && end.status === 'completed') out.notifyMany(thread.subscribers, 'turn/diff/updated', { threadId: thread.id, turnId, diff });
  if (publishes && end.status === 'completed') publishTurnReadState(ctx, thread, turnId, persisted);
  out.broadcast('thread/status/changed', { threadId: thread.id, status: thread.status });
  if (error) out.notifyMany(thread.subscribers, 'error', { error, willRetry: false, threadId: thread.id, turnId });
  if (publishes && end.status === 'failed') publishTurnReadState(ctx, thread, turnId, persisted);
  out.notifyMany(thread.subscribers, 'turn/completed', { threadId: thread.id, turn: completedView(turn) });
  ctx.supervisor.noteChanged(thread);
  ctx.afterTurnEnd(thread.id);
}

/** A durable thread's turn ended with a result: its read state moves (thread-read-states.ts), and every client hears it. */
function publishTurnReadState(ctx: HostContext, thread: LoadedThread, turnId: string, storedWithTurn: boolean): void {
  if (thread.identity?.ephemeral !== false) return;
  const readState = ctx.store.readStates.turnEnded(thread.id, turnId, ctx.clock.now(), storedWithTurn);
  ctx.outgoing.broadcast('thread/readState/changed', { threadId: thread.id, readState });
}

// Kept by turn/start for every large input; decoding the worker's encoding (slow, but the same
// input) covers a turn this thread did not start, which would be a bug, and says so.
function largeInputOf(ctx: HostContext, thread: LoadedThread, turnId: string, contentJson: Uint8Array): UserInput[] {
  const kept = thread.takeLargeInput(turnId);
  if (kept !== undefined) return [...kept];
  ctx.log('warn', 'a large turn input came back that this host did not keep; decoding it', { threadId: thread.id, turnId });
  return JSON.parse(bufferView(contentJson).toString('utf8')) as UserInput[];
}

// turn/completed carries only the final agent message ("summary"); a failed or interrupted
// turn carries none, and neither does a compaction's (as the reference sends it).
function completedView(turn: Turn): Turn {
  if (turn.status !== 'completed' || isCompaction(turn) || isUserShell(turn)) return { ...turn, items: [], itemsView: 'notLoaded' };
  const agent = turn.items.filter((item) => item.type === 'agentMessage');
  return { ...turn, items: agent.slice(-1), itemsView: 'summary' };
}

const isCompaction = (turn: Turn): boolean => turn.items.some((item) => item.type === 'contextCompaction');
// thread/shellCommand's own turn: its items are the user's commands and nothing else.
const isUserShell = (turn: Turn): boolean =>
  turn.items.length > 0 && turn.items.every((item) => item.type === 'commandExecution' && item.source === 'userShell');
