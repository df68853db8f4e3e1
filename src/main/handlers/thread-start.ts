// `thread/start`: a new thread with a fresh UUIDv7, its writer lock taken, the caller
// subscribed, answered from memory; its actor is placed in the pool behind the answer, and
// commands for it wait for that (actor-link.ts). `thread/started` is broadcast after
// the response. Nothing is written to disk until the first turn (lazy materialization).
import { LoadedThread } from '../threads/loaded-thread.js';
import type { Connection } from '../connections.js';
import { invalidRequest } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { threadStartParams } from '../protocol/method-params.js';
import { loadedThreadView, sessionSettingsView } from '../protocol/thread-view.js';
import { uuidv7 } from '../protocol/uuid.js';
import { placeActorBehind, prepareNewThread, publishThread } from '../threads/thread-loader.js';
import { resolveSession } from '../threads/thread-settings.js';

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
  const session = resolveSession(ctx, params);
  // A full host refuses before opening anything. The last check and the registration below
  // run in one synchronous stretch, so concurrent starts cannot both take the last room.
  for (let wait = ctx.capacity.roomOrWait(); wait !== null; wait = ctx.capacity.roomOrWait()) await wait;
  const now = ctx.clock.now();
  const thread = new LoadedThread(uuidv7(now), now);
  ctx.directory.register(thread);
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
  // A connection that closed while this request waited stays unsubscribed (it would pin the thread).
  if (ctx.connections.isOpen(connection.id)) thread.subscribe(connection.id);
  ctx.supervisor.noteChanged(thread);
  const view = loadedThreadView(thread, null);
  afterReply(() => ctx.outgoing.broadcast('thread/started', { thread: view }));
  return { thread: view, ...sessionSettingsView(session.settings), multiAgentMode: 'explicitRequestOnly' };
}
