// File operations the main thread starts on the home (an append, a rename, a directory read)
// run as async fs calls, and a request waiting on one gets an error at a deadline instead of
// waiting for a hung filesystem: the libuv thread may stay blocked, the client does not.
import { internalError, RpcError } from '../../../common/errors.js';
import { systemClock } from '../../../common/clock.js';
import { failWith, withDeadline } from '../../../common/deadline.js';

// A local rename or append takes far less; past this the operation is reported as failed.
const FS_DEADLINE_MS = 10_000;

/** `work`'s result, or an internal error naming `doing` when it fails or passes the deadline. */
export async function withFsDeadline<T>(work: Promise<T>, doing: string, deadlineMs = FS_DEADLINE_MS): Promise<T> {
  const late = `${doing} took longer than ${deadlineMs} ms`;
  try {
    return await withDeadline(work, deadlineMs, systemClock, failWith(late));
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw internalError(error instanceof Error && error.message === late ? late : `${doing} failed: ${String(error)}`);
  }
}
