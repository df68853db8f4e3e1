// The pool worker's side of the PostgreSQL thread store, shared by every actor the worker
// hosts: a few connections, opened with the first thread that needs them. Appends and
// cold-resume reads run here, next to the actor, so the main thread never carries history.
// `pg` and the store's code load with the first use (a dynamic import): a worker of a host on
// the files store never loads them (bench case `cold-start`).
import type { AppendOutcome, AppendRequest } from '../../../common/postgres/fenced-append.js';
import type { HistoryReplacement } from '../../../common/postgres/reverted-history.js';
import type { PostgresConnection } from '../../../common/postgres/postgres-connection.js';
import type { StoredHistoryText } from '../../../common/postgres/stored-lines.js';

// A worker hosts many actors; a few connections let one slow append not hold up the others'
// while keeping a fleet's connection count small.
const CONNECTIONS_PER_WORKER = 4;
const POOL = { max: CONNECTIONS_PER_WORKER, name: 'thread-host worker' };

/** One fenced append (src/common/postgres/fenced-append.ts). */
export async function appendToStore(connection: PostgresConnection, request: AppendRequest, deadlineMs: number): Promise<AppendOutcome> {
  const [{ sharedPool }, { appendLines }] = await Promise.all([import('../../../common/postgres/shared-pools.js'), import('../../../common/postgres/fenced-append.js')]);
  return appendLines(sharedPool(connection, POOL), request, { deadlineMs });
}

/** Puts the thread back to `from` lines after an append of unknown outcome (fenced-append.ts). */
export async function cutBackInStore(connection: PostgresConnection, request: { threadId: string; epoch: number; from: number }, deadlineMs: number): Promise<'cutBack' | 'fenced'> {
  const [{ sharedPool }, { cutBackAppend }] = await Promise.all([import('../../../common/postgres/shared-pools.js'), import('../../../common/postgres/fenced-append.js')]);
  return cutBackAppend(sharedPool(connection, POOL), request, { deadlineMs });
}

/** A thread's whole history replaced, fenced (src/common/postgres/reverted-history.ts). */
export async function replaceInStore(connection: PostgresConnection, replacement: HistoryReplacement, deadlineMs: number): Promise<'replaced' | 'fenced'> {
  const [{ sharedPool }, { replaceHistory }] = await Promise.all([import('../../../common/postgres/shared-pools.js'), import('../../../common/postgres/reverted-history.js')]);
  return replaceHistory(sharedPool(connection, POOL), replacement, { deadlineMs });
}

/** A thread's whole history as the rollout file's text, for a cold resume. */
export async function readStoredRollout(connection: PostgresConnection, threadId: string): Promise<string> {
  const text = await readStoredRolloutIfAny(connection, threadId);
  if (text === null) throw new Error(`no history is stored for thread ${threadId} in the PostgreSQL thread store`);
  return text;
}

/** A thread's history with its first message ever, once a revert replaced its rows (stored-lines.ts). */
export async function readStoredHistoryText(connection: PostgresConnection, threadId: string): Promise<StoredHistoryText> {
  const [{ sharedPool }, { readStoredHistory }] = await Promise.all([import('../../../common/postgres/shared-pools.js'), import('../../../common/postgres/stored-lines.js')]);
  const stored = await readStoredHistory(sharedPool(connection, POOL), threadId);
  if (stored === null) throw new Error(`no history is stored for thread ${threadId} in the PostgreSQL thread store`);
  return stored;
}

/** As readStoredRollout; null when the store holds no such thread (a fork's source that went). */
export async function readStoredRolloutIfAny(connection: PostgresConnection, threadId: string): Promise<string | null> {
  const [{ sharedPool }, { readRolloutText }] = await Promise.all([import('../../../common/postgres/shared-pools.js'), import('../../../common/postgres/stored-lines.js')]);
  return readRolloutText(sharedPool(connection, POOL), threadId);
}
