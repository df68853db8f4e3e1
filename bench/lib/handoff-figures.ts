// Fairness figures of the handoff scenario, pure so they can be tested on made-up timelines.
// Every process runs the same number of rounds, so at the end every process has the same
// number of turns and a share of the total says nothing; fairness is measured over the
// contended window instead: from the start of the race until the first process finished its
// rounds, while every process was still competing for the same threads.

/** Jain's fairness index of non-negative amounts: 1 when all equal, 1/n when one got everything. */
export function jainIndex(amounts: readonly number[]): number {
  const sum = amounts.reduce((a, b) => a + b, 0);
  const squares = amounts.reduce((a, b) => a + b * b, 0);
  return squares === 0 ? 1 : (sum * sum) / (amounts.length * squares);
}

/** Each process's share (0..1) of the events that fall in [from, to). */
export function sharesInWindow(eventsPerProcess: ReadonlyArray<readonly number[]>, from: number, to: number): number[] {
  const counts = eventsPerProcess.map((events) => events.filter((at) => at >= from && at < to).length);
  const total = counts.reduce((a, b) => a + b, 0);
  return counts.map((c) => (total === 0 ? 0 : c / total));
}

/**
 * The longest time one process went without completing a handoff while it still had rounds
 * to run: from `startedAt` to its first success, between successes, and from its last success
 * to `finishedAt` (when it finished or gave up). Restarts after a kill count as starvation.
 */
export function longestStarvation(successes: readonly number[], startedAt: number, finishedAt: number): number {
  const times = [startedAt, ...[...successes].sort((a, b) => a - b), finishedAt];
  let longest = 0;
  for (let i = 1; i < times.length; i += 1) longest = Math.max(longest, times[i]! - times[i - 1]!);
  return longest;
}
