// Batches writes. Every message is one write(2) unless something batches them: ws writes each
// frame with its own writev, and stdout (a pipe or socketpair) tries each write at once. A
// turn streams many small notifications and every status change goes to every client, and
// under bench cases `fanout` (200 clients) and `churn` (stdio) those syscalls, and the
// wake-ups of the reader each one causes, were the main thread's largest cost.
//
// So the first message an output gets in an event-loop iteration is written at once (a lone
// reply is never held back: with everything corked, an unsubscribe's reply waited for the
// unload that followed it in the same iteration; bench case `idle-unload`), and from its
// second message on the output is corked until the end of the iteration, when the flush
// (scheduled with atIterationEnd, scheduling.ts) uncorks every corked output: a burst leaves in
// two writes however long it is. Holding output longer than the iteration was tried too (a
// minimum time between writes): under fanout it saved no CPU worth its added delivery
// latency, so output never waits for a timer.
import type { Writable } from 'node:stream';
import { atIterationEnd } from '../scheduling.js';

/** What the flusher needs of an output: Node's cork/uncork (net.Socket, process.stdout). */
export type CorkableOutput = Pick<Writable, 'cork' | 'uncork'>;

export class OutputFlusher {
  /** Outputs written to in this iteration; the corked ones are those given a second message. */
  #written = new Map<CorkableOutput, boolean>();

  /** Called before each write to `output`: corks it from its second message in this iteration on. */
  beforeWrite(output: CorkableOutput): void {
    const corked = this.#written.get(output);
    if (corked === undefined) {
      if (this.#written.size === 0) atIterationEnd(this.flushNow);
      this.#written.set(output, false);
    } else if (!corked) {
      output.cork();
      this.#written.set(output, true);
    }
  }

  /** Uncorks every corked output now and starts a new iteration's count. */
  readonly flushNow = (): void => {
    if (this.#written.size === 0) return;
    const written = this.#written;
    this.#written = new Map();
    // An output destroyed meanwhile ignores the uncork.
    for (const [output, corked] of written) if (corked) output.uncork();
  };
}
