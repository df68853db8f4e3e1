// The one wait for a write lock another connection holds on a codex database. Connections
// here have no busy timeout (SQLite's handler would block the whole worker while it waits), so
// an attempt that met the lock answers 'busy' at once and is tried again, asynchronously,
// with SQLite's own handler's pauses, until its deadline; the worker's other work runs
// between the tries. The history projector and the codex state writer both wait this way.

/** Pauses between tries for a write lock another connection holds (SQLite's own busy handler's). */
const LOCK_RETRY_PAUSES_MS = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/** Whether better-sqlite3 threw because another connection holds the lock (SQLITE_BUSY or an extended code of it). */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/**
 * Runs `attempt` until `busy` says its outcome did not meet the lock, or until the next pause
 * would end past `deadlineAt()` (a performance.now() instant, asked after every try: a
 * deadline may come nearer while it waits). Answers the last outcome, busy when time ran out.
 */
export async function retryWhileBusy<T>(attempt: () => T | Promise<T>, busy: (outcome: T) => boolean, deadlineAt: () => number): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    const outcome = await attempt();
    if (!busy(outcome)) return outcome;
    const pause = Math.min(LOCK_RETRY_PAUSES_MS[Math.min(tries, LOCK_RETRY_PAUSES_MS.length - 1)]!, deadlineAt() - performance.now());
    if (pause <= 0) return outcome;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
