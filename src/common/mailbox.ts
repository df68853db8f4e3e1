// A serial queue: commands posted to one mailbox run one at a time, in order. Each loaded
// thread has one on the main thread (lifecycle requests such as resume and unload) and one
// in its actor (turns and close), so no two commands about a thread ever interleave.

/** Runs posted jobs strictly one after another. A failing job does not stop the queue. */
export class Mailbox {
  #tail: Promise<void> = Promise.resolve();
  #depth = 0;

  /** Queues `job`; the returned promise settles with the job's own outcome. */
  post<T>(job: () => Promise<T> | T): Promise<T> {
    this.#depth += 1;
    const run = this.#tail.then(job);
    this.#tail = run.then(
      () => this.#settle(),
      () => this.#settle(),
    );
    return run;
  }

  /** Jobs queued or running. */
  get depth(): number {
    return this.#depth;
  }

  /** Settles once every job posted so far has settled, whatever its outcome; never rejects. */
  settled(): Promise<void> {
    return this.#tail;
  }

  #settle(): void {
    this.#depth -= 1;
  }
}
