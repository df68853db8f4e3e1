// Waiting, with a deadline, for something the test can only look at: a screen's text, a
// thread's turns. Failing says what was awaited and what was last seen.

const POLL_MS = 100;

/**
 * Resolves with `look()`'s first result that `done` accepts; rejects after `deadlineMs` with
 * `what` and the last result described by `describe`.
 */
export async function pollUntil<T>(
  look: () => Promise<T> | T,
  done: (seen: T) => boolean,
  options: { deadlineMs: number; what: string; describe?: (seen: T) => string },
): Promise<T> {
  const deadline = Date.now() + options.deadlineMs;
  for (;;) {
    const seen = await look();
    if (done(seen)) return seen;
    if (Date.now() >= deadline) {
      const last = options.describe ? options.describe(seen) : JSON.stringify(seen);
      throw new Error(`no ${options.what} within ${options.deadlineMs} ms; last seen:\n${last}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
