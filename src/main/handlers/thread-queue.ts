// `thread/queue/add|list|update|delete|reorder|start`: input queued for a thread, run in order,
// one turn each, whenever the thread is loaded and has no turn in progress (after a turn ends,
// after a resume, or at once when added to an idle loaded thread), as the reference runs its
// queue. Kept durable by the thread store (threads/thread-queues.ts): in thread-host's own home
// (thread-queue-store.ts), mirrored into the reference's queue_1.sqlite, whose runs of it are
// not repeated here (codex-queue-reconcile.ts), or in the PostgreSQL store's table every host
// shares. Each change is an edit of the queue as the store holds it then, and is announced to
// the thread's subscribers with `thread/queue/changed` after the reply; on PostgreSQL, a change
// made through another host is announced by the host that has the thread loaded, which also
// runs it (`queueChangedElsewhere`). Errors are the reference's.
import { internalError, invalidRequest, threadNotLoaded } from '../../common/errors.js';
import type { Connection } from '../connections.js';
import type { HostContext } from '../host-context.js';
import type { AfterReply } from '../methods.js';
import { turnStartParams } from '../protocol/method-params.js';
import { requireThreadId } from '../protocol/thread-id.js';
import type * as T from '../protocol/turn-control-params.js';
import { uuidv7 } from '../protocol/uuid.js';
import type { LoadedThread } from '../threads/loaded-thread.js';
import type { QueuedSubmission, QueueEdit } from '../store/thread-queues.js';
import { turnStart } from './turn.js';
import type { ThreadId } from '../../common/thread-id.js';

type ParamsOf<D extends (value: unknown) => unknown> = ReturnType<D>;

/** The reference's page when `limit` is absent (the thread-list page size). */
const DEFAULT_PAGE = 25;

export async function threadQueueAdd(ctx: HostContext, _c: Connection, params: ParamsOf<typeof T.threadQueueAddParams>, afterReply: AfterReply): Promise<unknown> {
  const id = await requireThread(ctx, params.threadId);
  if (params.input.length === 0) throw invalidRequest('only user input can be added to the user-message queue');
  const submission: QueuedSubmission = {
    id: uuidv7(ctx.clock.now()),
    input: params.input,
    clientUserMessageId: params.clientUserMessageId,
    responsesapiClientMetadata: params.responsesapiClientMetadata,
  };
  await change(ctx, id, (queue) => ({ queue: [...queue, submission], result: undefined }), afterReply);
  afterReply(() => drainQueue(ctx, id));
  return { queuedSubmission: submission };
}

export async function threadQueueList(ctx: HostContext, _c: Connection, params: ParamsOf<typeof T.threadQueueListParams>): Promise<unknown> {
  const id = await requireThread(ctx, params.threadId);
  const queue = await ctx.store.queues.get(id);
  const start = params.cursor === null ? 0 : Number.parseInt(params.cursor, 10);
  if (!Number.isInteger(start) || start < 0 || String(start) !== params.cursor && params.cursor !== null) throw invalidRequest(`invalid cursor: ${params.cursor}`);
  const end = start + (params.limit ?? DEFAULT_PAGE);
  return { data: queue.slice(start, end), nextCursor: end < queue.length ? String(end) : null };
}

export async function threadQueueUpdate(ctx: HostContext, _c: Connection, params: ParamsOf<typeof T.threadQueueUpdateParams>, afterReply: AfterReply): Promise<unknown> {
  const id = await requireThread(ctx, params.threadId);
  if (params.input.length === 0) throw invalidRequest('only user input can be added to the user-message queue');
  const metadata = params.responsesapiClientMetadata;
  const updated = await change(
    ctx,
    id,
    (queue) => {
      const at = indexOf(queue, params.queuedSubmissionId);
      // Non-empty metadata replaces the submission's; none, or an empty map, keeps it.
      const submission = { ...queue[at]!, input: params.input, ...(metadata !== null && Object.keys(metadata).length > 0 ? { responsesapiClientMetadata: metadata } : {}) };
      return { queue: queue.map((queued, i) => (i === at ? submission : queued)), result: submission };
    },
    afterReply,
  );
  return { queuedSubmission: updated };
}

export async function threadQueueDelete(ctx: HostContext, _c: Connection, params: ParamsOf<typeof T.threadQueueDeleteParams>, afterReply: AfterReply): Promise<unknown> {
  const id = await requireThread(ctx, params.threadId);
  const deleted = await change(
    ctx,
    id,
    (queue) => {
      const kept = queue.filter((submission) => submission.id !== params.queuedSubmissionId);
      return kept.length === queue.length ? { queue: null, result: false } : { queue: kept, result: true };
    },
    afterReply,
  );
  return { deleted };
}

export async function threadQueueReorder(ctx: HostContext, _c: Connection, params: ParamsOf<typeof T.threadQueueReorderParams>, afterReply: AfterReply): Promise<unknown> {
  const id = await requireThread(ctx, params.threadId);
  const order = params.queuedSubmissionIds;
  await change(
    ctx,
    id,
    (queue) => {
      const byId = new Map(queue.map((submission) => [submission.id, submission]));
      if (order.length !== queue.length || new Set(order).size !== order.length || !order.every((sid) => byId.has(sid))) {
        throw invalidRequest('queue reorder must include every queued submission exactly once');
      }
      return { queue: order.map((sid) => byId.get(sid)!), result: undefined };
    },
    afterReply,
  );
  return {};
}

export async function threadQueueStart(ctx: HostContext, _c: Connection, params: ParamsOf<typeof T.threadQueueStartParams>, afterReply: AfterReply): Promise<unknown> {
  const id = await requireThread(ctx, params.threadId);
  const thread = idleLoaded(ctx, id);
  if (thread === 'busy') throw invalidRequest('thread already has an active or pending turn');
  if (thread === null) throw threadNotLoaded(id);
  const queue = await ctx.store.queues.get(id);
  // A named submission that is not there is "not found", even in an empty queue.
  const at = params.queuedSubmissionId === null ? 0 : indexOf(queue, params.queuedSubmissionId);
  if (queue.length === 0) throw invalidRequest('queue is empty');
  return startQueued(ctx, id, queue, at, afterReply);
}

/**
 * Runs the thread's next queued input if it is loaded with no turn in progress. Called after a
 * turn ends, after a resume and after an add; never waits unless the queue was not read yet.
 */
export function drainQueue(ctx: HostContext, threadId: ThreadId): void {
  const state = idleLoaded(ctx, threadId);
  if (state === null || state === 'busy') return;
  const known = ctx.store.queues.peek(threadId);
  if (known !== undefined && known.length === 0) return;
  void ctx.store.queues
    .get(threadId)
    .then(async (read) => {
      if (read.length === 0 || typeof idleLoaded(ctx, threadId) !== 'object') return;
      // Input the reference ran from its copy of the queue is not run again; input it may have
      // run waits (codex-queue-reconcile.ts).
      if ((await ctx.store.queues.beforeRun(threadId, () => drainQueue(ctx, threadId))) === 'hold') return;
      const queue = await ctx.store.queues.get(threadId);
      if (queue.length === 0 || typeof idleLoaded(ctx, threadId) !== 'object') return;
      const effects: Array<() => void> = [];
      return Promise.resolve(startQueued(ctx, threadId, queue, 0, (effect) => effects.push(effect))).then(() => effects.forEach((effect) => effect()));
    })
    .catch((error: unknown) => ctx.log('warn', 'could not run queued input', { threadId, error: String(error) }));
}

// Queued input runs once the thread's turn in progress ends. Only a queue already in memory can
// have input here: a resumed thread's was read by the resume's own drain, and a thread started
// here gets one only through thread/queue/add, which keeps it in memory. So a turn's end never
// waits on the disk to learn that a thread has no queue (bench case `idle-unload`, at once). On
// PostgreSQL, input queued through another host for a thread loaded here is read into memory
// when this host hears of it (`queueChangedElsewhere`).
export function drainAfterTurnEnd(ctx: HostContext, threadId: ThreadId): void {
  if (ctx.store.queues.peek(threadId) !== undefined) drainQueue(ctx, threadId);
}

/** The store changed the thread's queue itself (it dropped input the reference ran): its subscribers hear of it. */
export function queueChangedHere(ctx: HostContext, threadId: ThreadId): void {
  const subscribers = ctx.directory.get(threadId)?.subscribers;
  if (subscribers) ctx.outgoing.notifyMany(subscribers, 'thread/queue/changed', { threadId });
}

/**
 * Another host changed the thread's queue (PostgreSQL store), or may have while this host was
 * not listening (`threadId` null: every thread loaded here). A thread loaded here learns its
 * queue, its subscribers hear of the change, and queued input runs if it is idle.
 */
export function queueChangedElsewhere(ctx: HostContext, threadId: ThreadId | null): void {
  const threads = threadId === null ? ctx.directory.all() : [ctx.directory.get(threadId)].filter((thread) => thread !== undefined);
  for (const thread of threads) {
    if (thread.lifecycle.kind !== 'loaded') continue;
    void ctx.store.queues
      .get(thread.id)
      .then(() => {
        if (threadId !== null) ctx.outgoing.notifyMany(thread.subscribers, 'thread/queue/changed', { threadId: thread.id });
        drainQueue(ctx, thread.id);
      })
      .catch((error: unknown) => ctx.log('warn', 'could not read a queue changed by another host', { threadId: thread.id, error: String(error) }));
  }
}

// The submission leaves the queue and becomes a turn, as if sent by turn/start.
async function startQueued(ctx: HostContext, threadId: ThreadId, queue: QueuedSubmission[], at: number, afterReply: AfterReply): Promise<unknown> {
  const submission = queue[at]!;
  const started = turnStart(ctx, undefined as never, turnStartParams({ threadId, input: submission.input, clientUserMessageId: submission.clientUserMessageId }));
  // The turn is in progress before the queue's write: a second drain cannot take it again. The
  // submission leaves by its id: the queue may have changed since it was read.
  const removal = change(ctx, threadId, (current) => ({ queue: current.filter((queued) => queued.id !== submission.id), result: undefined }), afterReply);
  const answer = await started;
  await removal;
  return answer;
}

/** Applies `edit` to the thread's queue; if it changed, the subscribers hear of it after the reply. */
async function change<T>(ctx: HostContext, threadId: ThreadId, edit: QueueEdit<T>, afterReply: AfterReply): Promise<T> {
  const { changed, result } = await ctx.store.queues.change(threadId, edit);
  if (!changed) return result;
  afterReply(() => {
    const subscribers = ctx.directory.get(threadId)?.subscribers;
    if (subscribers) ctx.outgoing.notifyMany(subscribers, 'thread/queue/changed', { threadId });
  });
  return result;
}

/** The thread's id, when it is loaded or stored; the reference's thread-store error otherwise. */
async function requireThread(ctx: HostContext, raw: string): Promise<ThreadId> {
  const id = requireThreadId(raw);
  if (ctx.directory.get(id) === undefined && (await ctx.store.threads.locate(id)) === null) {
    throw internalError(`failed to read thread: invalid thread-store request: no rollout found for thread id ${id}`);
  }
  return id;
}

function idleLoaded(ctx: HostContext, threadId: ThreadId): LoadedThread | 'busy' | null {
  const thread = ctx.directory.get(threadId);
  if (thread === undefined || thread.lifecycle.kind !== 'loaded' || thread.identity === null) return null;
  return thread.pendingTurns > 0 ? 'busy' : thread;
}

function indexOf(queue: readonly QueuedSubmission[], submissionId: string): number {
  const at = queue.findIndex((submission) => submission.id === submissionId);
  if (at < 0) throw invalidRequest(`queued submission not found: ${submissionId}`);
  return at;
}
