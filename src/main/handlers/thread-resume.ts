// `thread/resume`: warm when the thread is loaded here (add the subscriber, cancel a pending
// unload), cold otherwise (find its rollout, take the writer lock, rebuild its turns in an
// actor). Requests about one thread queue behind each other in its mailbox; other threads'
// requests are not affected. A thread in its closing window answers "is closing" at once.
// As codex 0.171.0 does (probed): a warm resume ignores the request's settings (`config`,
// `model`, `cwd`, …; a bad `config` is not even read) while the thread has a subscriber; a
// loaded thread nobody is subscribed to, resumed with any setting, is unloaded (`notLoaded`,
// no `thread/closed`) and resumed cold with them, its MCP servers started again.
import { tokenUsageView } from '../../common/token-usage.js';
import { LoadedThread } from '../threads/loaded-thread.js';
import type { Connection } from '../connections.js';
import { noRolloutFound, notSupportedYet, threadArchived, threadClosing } from '../../common/errors.js';
import { paginatedCursor } from '../../common/rollout/history-cursors.js';
import { lastOrdinals, type LastOrdinals } from '../../common/rollout/history-pages.js';
import type { Turn } from '../../common/wire-types.js';
import { EncodedJson } from '../protocol/encoded-json.js';
import type { HostContext } from '../host-context.js';
import type { threadResumeParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { loadedThreadView, sessionSettingsView } from '../protocol/thread-view.js';
import { withThreadFacts } from './shown-thread.js';
import { drainQueue } from './thread-queue.js';
import { fullHistory } from '../threads/full-history.js';
import { loadThread } from '../threads/thread-loader.js';
import { publishLoaded } from '../threads/thread-publication.js';
import { resolveSession, type ResolvedSession } from '../threads/thread-settings.js';
import { warnRequestOfIgnoredSettings, warnThreadOfIgnoredSettings } from '../threads/ignored-settings-notices.js';

type Params = ReturnType<typeof threadResumeParams>;
type AfterReply = (effect: () => void) => void;

export async function threadResume(ctx: HostContext, connection: Connection, params: Params, afterReply: AfterReply): Promise<unknown> {
  const id = requireThreadId(params.threadId, 'session id');
  let session: ResolvedSession | null = null;
  for (;;) {
    let thread = ctx.directory.get(id);
    if (thread?.lifecycle.kind === 'unloading') throw threadClosing(id);
    if (!thread) {
      // Resolve configuration before registering, so a bad value registers nothing.
      session ??= resolveSession(ctx, params);
      // A cold resume is a new load: a full host makes room or refuses before opening anything.
      const wait = ctx.capacity.roomOrWait();
      if (wait !== null) {
        await wait;
        continue;
      }
      // Register before any await: a concurrent resume of the same id finds this instance
      // and queues behind us instead of loading a second copy.
      thread = new LoadedThread(id, ctx.clock.now());
      ctx.directory.register(thread);
    }
    const target = thread;
    const outcome = await target.mailbox.post(async () => {
      switch (target.lifecycle.kind) {
        case 'loaded':
          // Its history still entering the transcript (a cold resume just answered): after that.
          if (target.transcriptFill !== null) {
            await target.transcriptFill;
            return 'retry' as const;
          }
          if (target.subscribers.size === 0 && !target.turnRunning && changesSettings(params)) {
            await ctx.supervisor.unload(target, 'resettled');
            return 'retry' as const;
          }
          return warmResume(ctx, connection, target, params, afterReply);
        case 'loading':
          return coldResume(ctx, connection, target, params, session ?? resolveSession(ctx, params), afterReply);
        case 'unloading':
          throw threadClosing(id);
        case 'unloaded':
          return 'retry' as const;
      }
    });
    if (outcome !== 'retry') return outcome;
  }
}

/** Whether the request sets anything a load of the thread takes (an empty `config` too). */
function changesSettings(params: Params): boolean {
  const settings = [
    params.model, params.modelProvider, params.serviceTier, params.cwd, params.approvalPolicy, params.approvalsReviewer,
    params.sandbox, params.config, params.baseInstructions, params.developerInstructions, params.personality,
  ];
  return settings.some((value) => value !== null && value !== undefined);
}

function warmResume(ctx: HostContext, connection: Connection, thread: LoadedThread, params: Params, afterReply: AfterReply): unknown {
  // An ephemeral thread has no history anywhere.
  if (thread.identity?.ephemeral) throw noRolloutFound(thread.id);
  if (thread.historyMode === 'paginated') {
    if (!params.excludeTurns) warnFullHistory(ctx, connection);
    // The reference lists a paginated thread's turns from its history store, which has none yet.
    if (!thread.materialized) throw notSupportedYet('list_turns');
  }
  if (!thread.materialized) throw noRolloutFound(thread.id);
  // A connection that closed while this request waited stays unsubscribed (it would pin the thread).
  if (ctx.connections.isOpen(connection.id)) thread.subscribe(connection.id);
  ctx.supervisor.noteChanged(thread);
  const last = lastOrdinals(thread.historySource());
  const response = resumeResponse(ctx, thread, params.excludeTurns ? [] : fullHistory(thread), last);
  const lastTurnId = thread.turns.at(-1)?.id ?? null;
  if (!params.excludeTurns) afterReply(() => replayTokenUsage(ctx, connection, thread, lastTurnId));
  afterReply(() => clearGoal(ctx, connection, thread));
  // Input queued for the thread (thread/queue/add) runs once it is loaded and idle.
  afterReply(() => drainQueue(ctx, thread.id));
  // What a turn of the thread still asks its clients is asked of this one too (a client that
  // came back within the grace period picks up the pending tool call).
  afterReply(() => ctx.serverRequests.subscribed(thread.id, connection.id));
  return response;
}

async function coldResume(
  ctx: HostContext,
  connection: Connection,
  thread: LoadedThread,
  params: Params,
  session: ReturnType<typeof resolveSession>,
  afterReply: AfterReply,
): Promise<unknown> {
  // A failed lookup counts as no rollout, as an unreadable file does: the thread must not stay registered as loading.
  const location = await ctx.store.threads.locateResumable(thread.id).catch(() => null);
  if (location === null) {
    await ctx.supervisor.unload(thread, 'loadFailed');
    if ((await ctx.store.threads.locate(thread.id).catch(() => null)) === null && (await ctx.store.threads.locateArchived(thread.id).catch(() => null)) !== null) throw threadArchived(thread.id);
    throw noRolloutFound(thread.id);
  }
  const now = ctx.clock.now();
  const state = await loadThread(ctx, thread, {
    session,
    history: location,
    resume: true,
    serializeHistory: !params.excludeTurns,
    createdAtMs: now,
    originator: connection.clientName ?? 'thread-host',
    operation: 'resume',
    historyMode: session.config.historyMode,
  });
  // A resume's actor always reads the rollout (only a start's answers null).
  const history = state?.history ?? null;
  const turnsJson = publishLoaded(ctx, thread, state, params, [connection.id]);
  // The reference's order (probed): the deprecation notice, the thread's warnings, then the
  // thread announced as idle, all before it answers the resume.
  warnRequestOfIgnoredSettings(ctx, connection.id, session.requestConfig, session.ignoredSettings);
  if (thread.historyMode === 'paginated' && !params.excludeTurns) warnFullHistory(ctx, connection);
  warnThreadOfIgnoredSettings(ctx, connection.id, thread.id, session.ignoredSettings);
  const recordedModel = state?.model ?? null;
  if (params.model != null && recordedModel !== null && params.model !== recordedModel) {
    ctx.outgoing.notifyMany([connection.id], 'warning', { threadId: thread.id, message: modelChangeWarning(recordedModel, params.model) });
  }
  ctx.outgoing.broadcast('thread/status/changed', { threadId: thread.id, status: { type: 'idle' } });
  afterReply(() => replayTokenUsage(ctx, connection, thread, history?.lastTurnId ?? null));
  afterReply(() => clearGoal(ctx, connection, thread));
  afterReply(() => drainQueue(ctx, thread.id));
  // Null exactly when the resume excludes its turns (serializeHistory above).
  return resumeResponse(ctx, thread, turnsJson ?? [], { turn: history?.lastTurnOrdinal ?? null, item: history?.lastItemOrdinal ?? null });
}

function resumeResponse(ctx: HostContext, thread: LoadedThread, turns: Turn[] | EncodedJson, last: LastOrdinals): unknown {
  const settings = thread.settings!;
  return {
    // What a cold resume read goes as the pool worker serialized it (full-history.ts).
    thread: withThreadFacts(ctx, loadedThreadView(thread, turns)),
    ...sessionSettingsView(settings),
    collaborationMode: {
      mode: 'default',
      settings: { model: settings.model, reasoning_effort: settings.effort, developer_instructions: settings.developerInstructions },
    },
    multiAgentMode: 'explicitRequestOnly',
    initialTurnsPage: null,
    ...backwardsCursors(thread, last),
  };
}

// Where a client starts paging back from: the last turn and the last item of a paginated
// thread, anchor included; legacy history has none (the reference's nulls).
export function backwardsCursors(thread: LoadedThread, last: LastOrdinals): { turnsBackwardsCursor: string | null; itemsBackwardsCursor: string | null } {
  if (thread.historyMode !== 'paginated') return { turnsBackwardsCursor: null, itemsBackwardsCursor: null };
  return {
    turnsBackwardsCursor: last.turn === null ? null : paginatedCursor(thread.id, last.turn, true, 'turns'),
    itemsBackwardsCursor: last.item === null ? null : paginatedCursor(thread.id, last.item, true, 'itemsByCreatedAtOrdinal'),
  };
}

const RESUME_DEPRECATION =
  'Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`.';

function warnFullHistory(ctx: HostContext, connection: Connection): void {
  ctx.outgoing.notify(connection.id, 'deprecationNotice', { summary: RESUME_DEPRECATION, details: null });
}

// After a resume the reference replays the last persisted token usage to the caller, naming
// the last turn (a cold resume's may not be in the transcript yet, so it is passed).
function replayTokenUsage(ctx: HostContext, connection: Connection, thread: LoadedThread, lastTurnId: string | null): void {
  const usage = thread.lastTokenUsage;
  if (!usage || lastTurnId === null) return;
  ctx.outgoing.notifyMany([connection.id], 'thread/tokenUsage/updated', {
    threadId: thread.id,
    turnId: lastTurnId,
    tokenUsage: tokenUsageView(usage),
  });
}

/** The reference's warning when a resume names another model than the one the rollout recorded. */
export function modelChangeWarning(recorded: string, resuming: string): string {
  return `This session was recorded with model \`${recorded}\` but is resuming with \`${resuming}\`. Consider switching back to \`${recorded}\` as it may affect Codex performance.`;
}

// The reference tells the resuming client the thread has no goal, after the token usage
// (thread-host keeps no goals, so every resume clears).
function clearGoal(ctx: HostContext, connection: Connection, thread: LoadedThread): void {
  ctx.outgoing.notifyMany([connection.id], 'thread/goal/cleared', { threadId: thread.id });
}
