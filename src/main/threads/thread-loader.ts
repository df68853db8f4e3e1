// Brings a registered thread (lifecycle `loading`) into memory for thread/start and cold
// thread/resume: take the writer lock (waiting costs a timer, not a thread), place an actor in
// the pool (for a start, after the thread is answered and published), publish it as loaded.
// On any failure the thread goes through the one unload sequence (reason `loadFailed`), which
// releases whatever was acquired.
import type { ActorInit, ForkRequest, PostedResumeState, RevertRequest } from '../../common/actor-messages.js';
import { WriteFence } from '../../common/write-fence.js';
import { pathOf, type HistoryLocation } from '../../common/history-location.js';
import { actorHistoryOf } from '../store/actor-history.js';
import type { LoadedThread } from './loaded-thread.js';
import { activeWriter, coordinationTimeout, forkRefusalOf, internalError, threadArchived } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import { OwnedElsewhere } from '../fleet/owned-elsewhere.js';
import { HOST_VERSION } from '../protocol/thread-view.js';
import type { ResolvedSession } from './thread-settings.js';
import { afterOutputFlushed, outputFlushed } from '../scheduling.js';

export interface LoadRequest {
  session: ResolvedSession;
  /** Where the history is (or, for a start, will be); null for an ephemeral thread. */
  history: HistoryLocation | null;
  resume: boolean;
  /** A cold resume answering with its turns: the worker serializes them as it reads them. */
  serializeHistory: boolean;
  createdAtMs: number;
  originator: string;
  operation: 'start' | 'resume';
  /** A new thread's history format (a resumed one keeps its file's). */
  historyMode: 'legacy' | 'paginated';
  /** A fork's source: its actor writes the new rollout from it before reading it back. */
  fork?: ForkRequest;
  /** A revert: its actor writes the thread's new file (`history`) from the previous one before reading it back. */
  revert?: RevertRequest;
}

export async function loadThread(ctx: HostContext, thread: LoadedThread, request: LoadRequest): Promise<PostedResumeState | null> {
  try {
    await takeWriterLock(ctx, thread, request);
    const resumed = await spawnActor(ctx, actorInit(ctx, thread, request), request.operation);
    describe(ctx, thread, request, resumed);
    return resumed;
  } catch (error) {
    return failed(ctx, thread, request, error);
  }
}

/**
 * thread/start's load: only the writer lock. A new thread's answer needs nothing from its actor
 * (nothing is read, nothing written before the first turn), so it is answered from memory once
 * the lock is held; the caller publishes it, then places its actor with `placeActorBehind`.
 */
export async function prepareNewThread(ctx: HostContext, thread: LoadedThread, request: LoadRequest): Promise<ActorInit> {
  try {
    await takeWriterLock(ctx, thread, request);
    const init = actorInit(ctx, thread, request);
    describe(ctx, thread, request, null);
    return init;
  } catch (error) {
    return failed(ctx, thread, request, error);
  }
}

async function takeWriterLock(ctx: HostContext, thread: LoadedThread, request: LoadRequest): Promise<void> {
  if (request.history === null) return;
  // A fork is a new thread too, though its actor reads (its source) as a resume does.
  const newThread = request.resume && request.fork === undefined ? undefined : { createdAtMs: request.createdAtMs, historyMode: request.historyMode };
  const acquired = await ctx.locks.acquire(thread.id, { timeoutMs: request.session.config.writerLockTimeoutMs, ...(newThread === undefined ? {} : { newThread }) });
  if (acquired.kind === 'timedOut') throw coordinationTimeout(request.operation, acquired.cause);
  if (acquired.kind === 'activeWriter') throw acquired.ownerEndpoint ? new OwnedElsewhere(thread.id, acquired.ownerEndpoint) : activeWriter(thread.id);
  // Archived by another host since this load's lookup: answered as a resume of an archived thread.
  if (acquired.kind === 'archived') throw threadArchived(thread.id);
  thread.writerLockTaken(acquired.lock);
}

async function failed(ctx: HostContext, thread: LoadedThread, request: LoadRequest, error: unknown): Promise<never> {
  ctx.log('warn', 'thread failed to load', { threadId: thread.id, operation: request.operation, error: (error as Error).message });
  await ctx.supervisor.unload(thread, 'loadFailed');
  throw error;
}

/**
 * Places a published new thread's actor. Commands for it wait for the placement
 * (actor-link.ts), and so does the unload sequence, so no actor is placed for a thread already
 * gone. If it fails, the thread, which clients have seen started, is unloaded and announced
 * closed, releasing its lock.
 */
export function placeActorBehind(ctx: HostContext, thread: LoadedThread, init: ActorInit): void {
  thread.actorPlacementStarted((async () => {
    try {
      // After the answer has left: the first placement of a process loads the pool's packages
      // (bench case `cold-start`), which must not hold the answer up.
      await outputFlushed();
      await spawnActor(ctx, init, 'start');
      thread.actorPlacementSettled();
      // An unload that gave up waiting for this (a stuck spawn) went on without the actor: close
      // it now, unless the id already belongs to a newer incarnation, whose actor it would hit.
      if (thread.lifecycle.kind === 'unloaded' && ctx.directory.get(thread.id) === undefined) {
        void ctx.pool.closeActor(thread.id)?.catch(() => undefined);
        ctx.pool.forget(thread.id);
      }
    } catch (error) {
      thread.actorPlacementSettled();
      ctx.log('warn', 'thread failed to load', { threadId: thread.id, operation: 'start', error: (error as Error).message });
      // After the commands that waited for the placement have found no actor (a turn ends
      // failed while its thread is still listed) and their answers have left, the thread goes.
      afterOutputFlushed(() => void ctx.supervisor.unload(thread, 'loadFailed'));
    }
  })());
}

function actorInit(ctx: HostContext, thread: LoadedThread, request: LoadRequest): ActorInit {
  const fence = WriteFence.allocate();
  thread.fenceShared(new WriteFence(fence));
  return {
    threadId: thread.id,
    history: actorHistoryOf(request.history, thread.writerLock?.fencing ?? null),
    resume: request.resume,
    serializeHistory: request.serializeHistory,
    writerLease: thread.writerLock?.lease ?? null,
    historyMode: request.historyMode,
    session: { createdAtMs: request.createdAtMs, originator: request.originator, cliVersion: HOST_VERSION, source: 'vscode' },
    settings: request.session.settings,
    provider: request.session.provider,
    userAgent: userAgentOf(ctx),
    fence,
    ...(request.fork === undefined ? {} : { fork: request.fork }),
    ...(request.revert === undefined ? {} : { revert: request.revert }),
  };
}

async function spawnActor(ctx: HostContext, init: ActorInit, operation: LoadRequest['operation']): Promise<PostedResumeState | null> {
  try {
    return await ctx.pool.spawn(init, ctx.actorSpawnTimeoutMs);
  } catch (error) {
    // A fork the reference refuses (its source has no such turn) is the client's error.
    throw forkRefusalOf(error) ?? internalError(`${operation === 'start' ? 'error creating thread' : 'error resuming thread'}: ${(error as Error).message}`);
  }
}

/** What the host keeps of a loaded thread's origin and settings. */
function describe(ctx: HostContext, thread: LoadedThread, request: LoadRequest, resumed: PostedResumeState | null): void {
  // Its MCP servers are leased now and started when a turn first lists their tools.
  ctx.mcp.attach(thread.id, request.session.mcpServers, request.session.requestConfig);
  thread.described({
    identity: {
      createdAtMs: request.createdAtMs,
      path: pathOf(request.history),
      history: request.history,
      ephemeral: request.history === null,
      originator: request.originator,
      cliVersion: HOST_VERSION,
      source: 'vscode',
    },
    settings: request.session.settings,
    historyMode: resumed?.historyMode ?? request.historyMode,
    unloadDelaySecs: request.session.config.threadUnloadDelaySecs,
  });
}

/** Marks a loaded thread visible: listed, subscribed by its caller, watched for idleness. */
export function publishThread(ctx: HostContext, thread: LoadedThread, turns: number): void {
  thread.published(ctx.clock.now());
  ctx.directory.list(thread);
  ctx.log('info', 'thread loaded', { threadId: thread.id, path: thread.identity?.path ?? null, turns });
}

export function userAgentOf(ctx: HostContext): string {
  const originator = ctx.originator ?? 'thread-host';
  return `${originator}/${HOST_VERSION} (${process.platform} ${process.version}; ${process.arch})`;
}
