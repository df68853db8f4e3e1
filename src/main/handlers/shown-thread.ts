// What thread objects show that the rollout does not hold: the thread's name (as the thread
// store knows it: session_index.jsonl, or the PostgreSQL store's threads table) and its metadata (thread/metadata/update,
// history/thread-metadata.ts), both answered from memory. Objects built here get them added;
// objects the stored-history worker builds get them sent along with the request.
import { namedModelProvider } from '../config/host-config.js';
import type { StoredRead } from '../../common/stored-history-messages.js';
import type { HostContext } from '../host-context.js';
import type { HistoryLocation } from '../../common/history-location.js';
import { threadIdOf, type ThreadId } from '../../common/thread-id.js';

/** A thread object with the name and metadata it has here (objects are built without them). */
export function withThreadFacts(ctx: HostContext, thread: Record<string, unknown>): Record<string, unknown> {
  const id = threadIdOf(String(thread.id));
  const name = ctx.store.threads.nameOf(id);
  if (name !== null) thread.name = name;
  const metadata = ctx.store.metadata.get(id);
  if (metadata !== null) Object.assign(thread, metadata);
  return thread;
}

/** The stored-history worker's `read` of a thread that is not loaded here, with what it shows. */
export function storedThreadRead(ctx: HostContext, threadId: ThreadId, location: HistoryLocation, includeTurns: boolean): Extract<StoredRead, { kind: 'read' }> {
  return {
    kind: 'read',
    threadId,
    location,
    includeTurns,
    namedModelProvider: namedModelProvider(ctx.configDocument),
    threadName: ctx.store.threads.nameOf(threadId),
    metadata: ctx.store.metadata.get(threadId),
  };
}
