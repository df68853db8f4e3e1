// Batches socket writes. ws writes every frame with its own writev(2); a turn streams many
// small notifications and every status change is broadcast to every client. A socket that
// gets a frame is corked until the end of the event-loop iteration, so everything queued for
// it in that iteration leaves in one writev, and one setImmediate uncorks every socket that
// has output (not one per socket). Holding output longer than the iteration was measured
// (a 1 ms and a 4 ms minimum between writes): under fanout it saved no CPU worth its added
// delivery latency, so output never waits for a timer.
import type { Socket } from 'node:net';

export class OutputFlusher {
  #corked = new Set<Socket>();

  /** Corks `socket` until the end of this iteration (once, however many frames it gets). */
  hold(socket: Socket): void {
    if (this.#corked.has(socket)) return;
    socket.cork();
    if (this.#corked.size === 0) setImmediate(this.#flush);
    this.#corked.add(socket);
  }

  /** Sockets corked now, waiting for the flush. */
  get pending(): number {
    return this.#corked.size;
  }

  readonly #flush = (): void => {
    const corked = this.#corked;
    this.#corked = new Set();
    // A socket destroyed meanwhile ignores the uncork.
    for (const socket of corked) socket.uncork();
  };
}
