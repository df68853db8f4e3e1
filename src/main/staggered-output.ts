// A message for many connections (every status change goes to every client) is written to the
// first STAGGER_CHUNK of them at once and to the others one chunk per event-loop iteration, so
// a request that arrives meanwhile is read and answered between two chunks instead of after the
// last of the writes, each of which is a syscall that wakes a reader (bench case `fanout`: the
// loaded/list probe while status changes go to 200 clients). Order per connection is kept: a
// connection written to directly while it still has staggered messages gets them first, so a
// later reply or notification never overtakes one. `afterOutputFlushed` callbacks wait for the
// last chunk (scheduling.ts), as they waited for the writes of one iteration.
import type { WireMessage } from './transport/transport.js';
import { holdAfterFlush, inOwnIteration, releaseAfterFlush } from './scheduling.js';

/** Connections written per iteration. */
export const STAGGER_CHUNK = 32;

/** Writes one serialized message to one connection. */
export type MessageWrite = (message: WireMessage) => boolean;

export class StaggeredOutput {
  /** Messages not yet written, per connection, in the order they were given; drained in insertion order. */
  readonly #queued = new Map<MessageWrite, WireMessage[]>();
  #draining = false;

  /** Writes `message` to `write` after what is already queued for it, in a later iteration. */
  later(write: MessageWrite, message: WireMessage): void {
    const queue = this.#queued.get(write);
    if (queue === undefined) this.#queued.set(write, [message]);
    else queue.push(message);
    if (this.#draining) return;
    this.#draining = true;
    holdAfterFlush();
    inOwnIteration(this.#drainChunk);
  }

  /** Writes what is queued for `write` now: called before any direct write to it. */
  catchUp(write: MessageWrite): void {
    const queue = this.#queued.get(write);
    if (queue === undefined) return;
    this.#queued.delete(write);
    for (const message of queue) write(message);
  }

  /** Drops what is queued for a connection that closed. */
  forget(write: MessageWrite): void {
    this.#queued.delete(write);
  }

  get pendingConnections(): number {
    return this.#queued.size;
  }

  readonly #drainChunk = (): void => {
    let written = 0;
    for (const write of this.#queued.keys()) {
      if (written === STAGGER_CHUNK) break;
      this.catchUp(write);
      written += 1;
    }
    if (this.#queued.size > 0) {
      inOwnIteration(this.#drainChunk);
      return;
    }
    this.#draining = false;
    releaseAfterFlush();
  };
}
