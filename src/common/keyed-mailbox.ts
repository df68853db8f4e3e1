// A serial queue per key: jobs posted under one key run one at a time, in order, each once the
// one before it settled (whatever its outcome); jobs under different keys do not wait for each
// other. A key's entry goes as soon as its last job settles, so a host that touched a million
// threads keeps none of them here. Mailbox (mailbox.ts) is the one-key case.

export class KeyedMailbox<K> {
  readonly #tails = new Map<K, Promise<unknown>>();

  /** Queues `job` under `key`; the returned promise settles with the job's own outcome. */
  post<T>(key: K, job: () => Promise<T> | T): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const run = previous.then(job, job);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, settled);
    void settled.then(() => {
      if (this.#tails.get(key) === settled) this.#tails.delete(key);
    });
    return run;
  }

  /** Keys with a job queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}
