// How long a session waits before starting its server again: 500 ms after the first failure,
// doubling to 30 s. A server that stayed up for `STABLE_MS` starts the count afresh, so one
// that crashes once a day restarts at once, and one that dies right after every start does
// not spin.

export const FIRST_RESTART_DELAY_MS = 500;
export const MAX_RESTART_DELAY_MS = 30_000;
export const STABLE_MS = 30_000;

/** The delay before restart number `attempt` (1 for the first restart). */
export function restartDelay(attempt: number): number {
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, attempt - 1));
}
