// `thread/start`: a new thread with a fresh UUIDv7, its writer lock taken, the caller
// subscribed, answered from memory; its actor is placed in the pool behind the answer, and
// commands for it wait for that (actor-link.ts). `thread/started` is broadcast after
// the response. Nothing is written to disk until the first turn (lazy materialization).
import type { Connection } from '../connections.js';
import { invalidRequest } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadStartParams } from '../protocol/method-params.js';
import { loadedThreadView, sessionSettingsView } from '../protocol/thread-view.js';
import { placeActorBehind, prepareNewThread, publishThread } from '../threads/thread-loader.js';
import { registerNewThread, subscribeAndWatch } from '../threads/thread-publication.js';
import { resolveSession } from '../threads/thread-settings.js';
import { warnRequestOfIgnoredSettings, warnThreadOfIgnoredSettings } from '../threads/ignored-settings-notices.js';
import { normaliseDynamicTools } from '../tools/dynamic-tool-specs.js';
import { withDynamicTools } from '../tools/thread-tools.js';
import { sandboxOfProfile } from '../threads/permission-profile.js';

type Params = ReturnType<typeof threadStartParams>;

export async function threadStart(
  ctx: HostContext,
  connection: Connection,
  params: Params,
  afterReply: (effect: () => void) => void,
): Promise<unknown> {
  // The reference accepts the field only from clients that opted into experimental API.
  if (params.historyMode !== null && !connection.experimentalApi) {
    throw invalidRequest('thread/start.historyMode requires experimentalApi capability');
  }
  const profileSandbox = sandboxOfProfile(params);
  const resolved = resolveSession(ctx, { ...params, sandbox: params.sandbox ?? profileSandbox });
  // The client's tools are checked before anything is registered: a bad one creates no thread.
  const dynamicTools = params.dynamicTools === null ? [] : normaliseDynamicTools(params.dynamicTools);
  const profile = params.permissions === null ? {} : { permissionProfile: params.permissions };
  const session = { ...resolved, settings: { ...resolved.settings, ...profile, ...withDynamicTools(dynamicTools, resolved.settings.tools) } };
  const { thread, now } = await registerNewThread(ctx);
  const ephemeral = params.ephemeral === true;
  const init = await prepareNewThread(ctx, thread, {
    session,
    history: ephemeral ? null : ctx.store.threads.newThread(thread.id, now),
    resume: false,
    serializeHistory: false,
    createdAtMs: now,
    originator: connection.clientName ?? 'thread-host',
    operation: 'start',
    historyMode: params.historyMode ?? session.config.historyMode,
  });
  thread.created(now);
  publishThread(ctx, thread, 0);
  placeActorBehind(ctx, thread, init);
  subscribeAndWatch(ctx, thread, [connection.id]);
  const view = loadedThreadView(thread, null);
  warnRequestOfIgnoredSettings(ctx, connection.id, session.requestConfig, session.ignoredSettings);
  afterReply(() => ctx.outgoing.broadcast('thread/started', { thread: view }));
  afterReply(() => warnThreadOfIgnoredSettings(ctx, connection.id, thread.id, session.ignoredSettings));
  return { thread: view, ...sessionSettingsView(session.settings), multiAgentMode: 'explicitRequestOnly' };
}
