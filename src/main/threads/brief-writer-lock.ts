// A thread's writer lock (or its ownership in the PostgreSQL store) held only for a change to
// its history made by a request (thread/archive moves the rollout, thread/delete removes it),
// so that no process writes the thread while it moves or goes. A thread another process has loaded is refused at once, with the reference's
// "already has an active writer"; waiting for contended coordination has the configured
// deadline, as a load's acquisition has.
import { resolveHostConfig } from '../config/host-config.js';
import { activeWriter, internalError } from '../../common/errors.js';
import type { HostContext } from '../host-context.js';
import type { WriterLock } from '../store/writer-lock-backend.js';

// The default writer_lock_timeout_ms, for a configuration thread/start would refuse.
const FALLBACK_LOCK_TIMEOUT_MS = 30_000;

/** `work`'s result, run while this host holds the thread's writer lock; released after it in any case. */
export async function withBriefWriterLock<T>(ctx: HostContext, threadId: string, work: (lock: WriterLock) => Promise<T>): Promise<T> {
  // Archiving and deleting change the thread itself, archived or not (thread/delete removes an archived one).
  const acquired = await ctx.locks.acquire(threadId, { timeoutMs: lockTimeoutMs(ctx), takeArchived: true });
  if (acquired.kind === 'activeWriter') throw activeWriter(threadId);
  if (acquired.kind === 'timedOut') {
    throw internalError(`timed out waiting for the writer lock of thread ${threadId}${acquired.cause === undefined ? '' : ` (${acquired.cause})`}`);
  }
  if (acquired.kind === 'archived') throw internalError(`thread ${threadId} was refused as archived though archived threads were asked for`);
  try {
    return await work(acquired.lock);
  } finally {
    ctx.locks.release(acquired.lock);
  }
}

function lockTimeoutMs(ctx: HostContext): number {
  try {
    return resolveHostConfig(ctx.configDocument).writerLockTimeoutMs;
  } catch {
    return FALLBACK_LOCK_TIMEOUT_MS; // an invalid configuration is thread/start's to report
  }
}
