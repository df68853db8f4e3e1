// Brings a registered thread (lifecycle `loading`) into memory for thread/start and cold
// thread/resume: take the writer lock (waiting costs a timer, not a thread), place an actor
// in the pool, then publish the thread as loaded. On any failure the thread goes through the
// one unload sequence (reason `loadFailed`), which releases whatever was acquired.
import type { ActorInit, ActorResumeState } from '../../common/actor-messages.js';
import { WriteFence } from '../../common/write-fence.js';
import type { LoadedThread } from './loaded-thread.js';
import { activeWriter, coordinationTimeout, internalError } from '../errors.js';
import type { HostContext } from '../host-context.js';
import { HOST_VERSION } from '../protocol/thread-view.js';
import type { ResolvedSession } from './thread-settings.js';

export interface LoadRequest {
  session: ResolvedSession;
  rolloutPath: string | null;
  resume: boolean;
  createdAtMs: number;
  originator: string;
  operation: 'start' | 'resume';
  /** A new thread's history format (a resumed one keeps its file's). */
  historyMode: 'legacy' | 'paginated';
}

export async function loadThread(ctx: HostContext, thread: LoadedThread, request: LoadRequest): Promise<ActorResumeState | null> {
  try {
    if (request.rolloutPath !== null) {
      const acquired = await ctx.locks.acquire(thread.id, { timeoutMs: request.session.config.writerLockTimeoutMs });
      if (acquired.kind === 'timedOut') throw coordinationTimeout(request.operation);
      if (acquired.kind === 'activeWriter') throw activeWriter(thread.id);
      thread.writerLock = acquired.lock;
    }
    const fence = WriteFence.allocate();
    thread.fence = new WriteFence(fence);
    const init: ActorInit = {
      threadId: thread.id,
      rolloutPath: request.rolloutPath,
      resume: request.resume,
      writerLease: thread.writerLock?.lease ?? null,
      historyMode: request.historyMode,
      session: { createdAtMs: request.createdAtMs, originator: request.originator, cliVersion: HOST_VERSION, source: 'vscode' },
      settings: request.session.settings,
      provider: request.session.provider,
      userAgent: userAgentOf(ctx),
      fence,
    };
    let resumed: ActorResumeState | null;
    try {
      resumed = await ctx.pool.spawn(init, ctx.actorSpawnTimeoutMs);
    } catch (error) {
      throw internalError(
        `${request.operation === 'start' ? 'error creating thread' : 'error resuming thread'}: ${(error as Error).message}`,
      );
    }
    thread.identity = {
      createdAtMs: request.createdAtMs,
      path: request.rolloutPath,
      ephemeral: request.rolloutPath === null,
      originator: request.originator,
      cliVersion: HOST_VERSION,
      source: 'vscode',
    };
    thread.settings = request.session.settings;
    thread.historyMode = resumed?.historyMode ?? request.historyMode;
    thread.unloadDelaySecs = request.session.config.threadUnloadDelaySecs;
    return resumed;
  } catch (error) {
    ctx.log('warn', 'thread failed to load', { threadId: thread.id, operation: request.operation, error: (error as Error).message });
    await ctx.supervisor.unload(thread, 'loadFailed');
    throw error;
  }
}

/** Marks a loaded thread visible: listed, subscribed by its caller, watched for idleness. */
export function publishThread(ctx: HostContext, thread: LoadedThread): void {
  thread.moveTo({ kind: 'loaded', since: ctx.clock.now() });
  ctx.directory.list(thread);
  ctx.log('info', 'thread loaded', { threadId: thread.id, path: thread.identity?.path ?? null, turns: thread.turns.length });
}

export function userAgentOf(ctx: HostContext): string {
  const originator = ctx.originator ?? 'thread-host';
  return `${originator}/${HOST_VERSION} (${process.platform} ${process.version}; ${process.arch})`;
}
