// Batches writes. Every message is one write(2) unless something batches them: ws writes each
// frame with its own writev, and stdout (a pipe or socketpair) tries each write at once. A
// turn streams many small notifications and every status change goes to every client, and
// measured under fanout (200 clients) and churn (stdio) those syscalls, and the wake-ups of
// the reader each one causes, were the main thread's largest cost. An output that gets a
// message is corked until the end of the event-loop iteration, so everything queued for it in
// that iteration leaves in one writev, and one setImmediate uncorks every output that has
// something (not one per output). Holding output longer than the iteration was measured (a
// 1 ms and a 4 ms minimum between writes): under fanout it saved no CPU worth its added
// delivery latency, so output never waits for a timer.
import type { Writable } from 'node:stream';

/** What the flusher needs of an output: Node's cork/uncork (net.Socket, process.stdout). */
export type CorkableOutput = Pick<Writable, 'cork' | 'uncork'>;

export class OutputFlusher {
  #corked = new Set<CorkableOutput>();

  /** Corks `output` until the end of this iteration (once, however many messages it gets). */
  hold(output: CorkableOutput): void {
    if (this.#corked.has(output)) return;
    output.cork();
    if (this.#corked.size === 0) setImmediate(this.flushNow);
    this.#corked.add(output);
  }

  /** Outputs corked now, waiting for the flush. */
  get pending(): number {
    return this.#corked.size;
  }

  /** Uncorks every held output now (the scheduled flush then finds nothing to do). */
  readonly flushNow = (): void => {
    if (this.#corked.size === 0) return;
    const corked = this.#corked;
    this.#corked = new Set();
    // An output destroyed meanwhile ignores the uncork.
    for (const output of corked) output.uncork();
  };
}
