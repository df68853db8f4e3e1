// `thread/fork`: a new thread holding the source's history, whole or up to and including
// `lastTurnId`, loaded and subscribed like a started one, as codex 0.171.0 does it. The host
// only finds the source's history (from memory when the source is loaded here); the new
// thread's actor reads it, writes the new rollout in the reference's form (or, on the
// PostgreSQL store, the fork's rows, as the new thread's owner) and reads that back as a cold
// resume would (src/actors/rollout-writer/fork-rollout.ts), all under the spawn's deadline.
// The source's writer lock (ownership) is never taken or waited for: the fork gets its own, so
// a thread another host has loaded is forked while that host goes on writing it.
import type { Connection } from '../connections.js';
import type { HistoryLocation } from '../../common/history-location.js';
import { noRolloutFound, threadArchived } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadForkParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import { loadedThreadView, sessionSettingsView } from '../protocol/thread-view.js';
import { afterPendingLoad } from '../threads/pending-load.js';
import { loadThread } from '../threads/thread-loader.js';
import { publishLoaded, registerNewThread } from '../threads/thread-publication.js';
import { resolveSession } from '../threads/thread-settings.js';
import { warnRequestOfIgnoredSettings, warnThreadOfIgnoredSettings } from '../threads/ignored-settings-notices.js';
import { withThreadFacts } from './shown-thread.js';
import { dynamicToolsOf, withDynamicTools } from '../tools/thread-tools.js';
import type { ThreadId } from '../../common/thread-id.js';

type Params = ReturnType<typeof threadForkParams>;

export async function threadFork(ctx: HostContext, connection: Connection, params: Params, afterReply: (effect: () => void) => void): Promise<unknown> {
  const sourceId = requireThreadId(params.threadId, 'session id');
  const resolved = resolveSession(ctx, params);
  const source = await sourceHistory(ctx, sourceId);
  // A fork of a loaded thread takes its client's tools with it (session_meta.dynamic_tools).
  const sourceTools = dynamicToolsOf(ctx.directory.get(sourceId)?.settings ?? null);
  const session = sourceTools.length === 0 ? resolved : { ...resolved, settings: { ...resolved.settings, ...withDynamicTools(sourceTools, resolved.settings.tools) } };
  const { thread, now } = await registerNewThread(ctx);
  const state = await loadThread(ctx, thread, {
    session,
    // An ephemeral fork is written nowhere: its actor keeps the history it read (fork-rollout.ts).
    history: params.ephemeral ? null : ctx.store.threads.newThread(thread.id, now),
    resume: true,
    serializeHistory: !params.excludeTurns,
    createdAtMs: now,
    originator: connection.clientName ?? 'thread-host',
    operation: 'start',
    historyMode: session.config.historyMode,
    fork: { sourceThreadId: sourceId, source, lastTurnId: params.lastTurnId, beforeTurnId: params.beforeTurnId, sourceCwd: params.cwd === null },
  });
  // A resume's actor always reads the rollout, and so does a fork's.
  const turnsJson = publishLoaded(ctx, thread, state, params, [connection.id]);
  const started = loadedThreadView(thread, null);
  // As for a resume, the reference tells the forking client of ignored keys before it answers.
  warnRequestOfIgnoredSettings(ctx, connection.id, session.requestConfig, session.ignoredSettings);
  warnThreadOfIgnoredSettings(ctx, connection.id, thread.id, session.ignoredSettings);
  afterReply(() => ctx.outgoing.broadcast('thread/started', { thread: started }));
  return {
    thread: withThreadFacts(ctx, loadedThreadView(thread, turnsJson ?? [])),
    ...sessionSettingsView(thread.settings!),
    multiAgentMode: 'explicitRequestOnly',
  };
}

// The source's history: a thread loaded here is where its identity says (from memory), once
// it has one (its file, or else the thread store's rows); any other is looked up as
// thread/resume looks it up. A thread with nothing written (ephemeral, or no turn yet) has no
// history to fork, as for the reference.
async function sourceHistory(ctx: HostContext, id: ThreadId): Promise<HistoryLocation> {
  await afterPendingLoad(ctx, id, () => undefined);
  const loaded = ctx.directory.get(id);
  if (loaded?.readsFromTranscript && loaded.identity) {
    const history = loaded.materialized ? loaded.identity.history : null;
    if (history === null) throw noRolloutFound(id);
    return history;
  }
  const found = await ctx.store.threads.locate(id);
  if (found !== null) return found;
  if ((await ctx.store.threads.locateArchived(id)) !== null) throw threadArchived(id);
  throw noRolloutFound(id);
}
