// Waiting for a condition nothing signals (a socket's queue drained, requests finished), with
// a deadline: shutdown waits on such conditions and must never hang on one.

// Often enough that a drained queue is noticed at once on a human scale, rarely enough to cost nothing.
const POLL_MS = 10;

/** Resolves once `done()` holds (checked every 10 ms) or `ms` have passed. */
export async function waitUntil(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}
