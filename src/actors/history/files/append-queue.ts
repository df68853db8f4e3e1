// The file appender's ordering (rollout-appender.ts): batches run one after another in call
// order even when callers do not await each other, each its own write(2); a failed one does not
// stop the chain (the appender's own state decides what later batches do), and the lines
// queued but not yet landed are counted for the ordinals a caller peeks at. (The PostgreSQL
// appender groups waiting batches into one statement instead: commit-groups.ts.)

export class AppendQueue {
  /** Lines handed to `push` whose batch has not settled yet. */
  #queuedLines = 0;
  // Settles when every batch queued so far has settled; never rejects.
  #tail: Promise<void> = Promise.resolve();

  get queuedLines(): number {
    return this.#queuedLines;
  }

  /** Runs `write` (a batch of `lines` lines) after every batch queued before it; its own outcome. */
  push(lines: number, write: () => Promise<void>): Promise<void> {
    this.#queuedLines += lines;
    const run = this.#tail.then(write).finally(() => (this.#queuedLines -= lines));
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Runs `then` once every batch queued so far has settled. */
  afterAll<T>(then: () => T | Promise<T>): Promise<T> {
    return this.#tail.then(then);
  }
}
