// The steps every load that makes a thread visible takes, in one order: a new thread waits for
// room and is registered before anything awaits (so a concurrent request finds it loading);
// once its load has read the history, the turns enter the transcript (behind the answer,
// transcript-fill), the thread learns what its history says of it, is listed as loaded, gets
// its subscribers and is watched for idleness. thread/start, thread/resume (cold),
// thread/fork and thread/revert all go through here.
import { withDynamicTools } from '../tools/thread-tools.js';
import type { DynamicToolSpec } from '../tools/dynamic-tool-specs.js';
import type { PostedResumeState } from '../../common/actor-messages.js';
import type { ConnectionId } from '../connections.js';
import type { HostContext } from '../host-context.js';
import { EncodedJson } from '../protocol/encoded-json.js';
import { newThreadId } from '../protocol/thread-id.js';
import { LoadedThread } from './loaded-thread.js';
import { fillTranscript } from './transcript-fill.js';
import type { ResumedFacts } from './thread-facts.js';
import { publishThread } from './thread-loader.js';

/**
 * A new thread (start, fork), registered once the host has room: a full host waits or
 * refuses before opening anything. The last check and the registration run in one synchronous
 * stretch, so concurrent loads cannot both take the last room.
 */
export async function registerNewThread(ctx: HostContext): Promise<{ thread: LoadedThread; now: number }> {
  for (let wait = ctx.capacity.roomOrWait(); wait !== null; wait = ctx.capacity.roomOrWait()) await wait;
  const now = ctx.clock.now();
  const thread = new LoadedThread(newThreadId(now), now);
  ctx.directory.register(thread);
  return { thread, now };
}

/** Subscribes each connection still open (one that closed while the request waited would pin the thread), then watches the thread. */
export function subscribeAndWatch(ctx: HostContext, thread: LoadedThread, connections: Iterable<ConnectionId>): void {
  for (const connection of connections) if (ctx.connections.isOpen(connection)) thread.subscribe(connection);
  ctx.supervisor.noteChanged(thread);
}

/**
 * Makes a thread whose load read its history (`state`; null for a fork read from nothing)
 * visible: transcript, facts, listing, subscribers, idleness. Returns the turns as the worker
 * serialized them, for the answer (null when the load did not serialize them).
 */
export function publishLoaded(
  ctx: HostContext,
  thread: LoadedThread,
  state: PostedResumeState | null,
  request: { cwd: string | null; model: string | null },
  subscribers: Iterable<ConnectionId>,
): EncodedJson | null {
  const turnsJson = state?.fullTurnsJson ? EncodedJson.of(state.fullTurnsJson) : null;
  // The turns enter the transcript after the answer (transcript-fill.ts); the answer is made of
  // what came beside them.
  if (state !== null) fillTranscript(ctx, thread, state.history);
  thread.resumed(state === null ? null : resumedFacts(thread, state, request, turnsJson));
  publishThread(ctx, thread, state?.history.turnCount ?? 0);
  subscribeAndWatch(ctx, thread, subscribers);
  return turnsJson;
}

// As the reference does, a resumed thread is who its rollout says it is (creation, originator,
// version, source), and runs where and with the model its history last ran with unless the
// request says otherwise. The provider stays this host's configured one: a provider id from
// another host's configuration may not exist here.
function resumedFacts(
  thread: LoadedThread,
  state: PostedResumeState,
  params: { cwd: string | null; model: string | null },
  turnsJson: EncodedJson | null,
): ResumedFacts {
  const identity = thread.identity!;
  return {
    identity: {
      ...identity,
      ...(state.createdAtMs !== null ? { createdAtMs: state.createdAtMs } : {}),
      ...(state.originator ? { originator: state.originator } : {}),
      ...(state.cliVersion ? { cliVersion: state.cliVersion } : {}),
      ...(state.source !== null ? { source: state.source } : {}),
      forkedFromId: state.forkedFromId,
    },
    settings: {
      ...thread.settings!,
      ...(params.cwd === null && state.cwd ? { cwd: state.cwd } : {}),
      ...(params.model === null && state.model ? { model: state.model } : {}),
      // The tools the thread was started with come back with it, as the reference keeps them.
      ...(state.dynamicTools === null ? {} : withDynamicTools(state.dynamicTools as DynamicToolSpec[], thread.settings!.tools)),
    },
    preview: state.preview,
    updatedAtMs: state.updatedAtMs,
    lastTokenUsage: state.lastTokenUsage,
    resumedHistoryJson: turnsJson === null ? null : { count: state.history.turnCount, json: turnsJson },
  };
}

