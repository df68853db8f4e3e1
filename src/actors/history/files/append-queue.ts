// The file appender's ordering (rollout-appender.ts): batches run one after another in call
// order even when callers do not await each other, each its own write(2); a failed one does not
// stop the queue (the appender's own state decides what later batches do), and the lines
// queued but not yet landed are counted for the ordinals a caller peeks at. (The PostgreSQL
// appender groups waiting batches into one statement instead: commit-groups.ts.)
import { Mailbox } from '../../../common/mailbox.js';

export class AppendQueue {
  /** Lines handed to `push` whose batch has not settled yet. */
  #queuedLines = 0;
  readonly #batches = new Mailbox();

  get queuedLines(): number {
    return this.#queuedLines;
  }

  /** Runs `write` (a batch of `lines` lines) after every batch queued before it; its own outcome. */
  push(lines: number, write: () => Promise<void>): Promise<void> {
    this.#queuedLines += lines;
    // Counted out before the next batch starts, as it was counted in.
    return this.#batches.post(async () => {
      try {
        await write();
      } finally {
        this.#queuedLines -= lines;
      }
    });
  }

  /** Runs `then` once every batch queued so far has settled. */
  afterAll<T>(then: () => T | Promise<T>): Promise<T> {
    return this.#batches.settled().then(then);
  }
}
