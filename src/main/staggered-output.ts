// A message for many connections (every status change goes to every client) is written to the
// first STAGGER_CHUNK of them at once and to the others one chunk per event-loop iteration, so
// a request that arrives meanwhile is read and answered between two chunks instead of after the
// last of the writes, each of which is a syscall that wakes a reader (bench case `fanout`: the
// loaded/list probe while status changes go to 200 clients). Order per connection is kept: a
// connection written to directly while it still has staggered messages gets them first, so a
// later reply or notification never overtakes one. `afterOutputFlushed` callbacks wait for the
// last chunk (scheduling.ts), as they waited for the writes of one iteration.
import type { LineSink } from './connections.js';
import type { WireMessage } from './transport/transport.js';
import { holdAfterFlush, inOwnIteration, releaseAfterFlush } from './scheduling.js';

/** Connections written per iteration. */
export const STAGGER_CHUNK = 32;

/** One connection's messages not yet written, and how to write them. */
interface Queued {
  readonly write: LineSink;
  readonly messages: WireMessage[];
}

export class StaggeredOutput<Key> {
  /** Per connection, in the order first queued (the order chunks are drained in). */
  readonly #queued = new Map<Key, Queued>();
  #draining = false;

  /** Writes `message` with `write` after what is already queued for `key`, in a later iteration. */
  later(key: Key, write: LineSink, message: WireMessage): void {
    const queued = this.#queued.get(key);
    if (queued === undefined) this.#queued.set(key, { write, messages: [message] });
    else queued.messages.push(message);
    if (this.#draining) return;
    this.#draining = true;
    holdAfterFlush();
    inOwnIteration(this.#drainChunk);
  }

  /** Writes what is queued for `key` now: called before any direct write to it. */
  catchUp(key: Key): void {
    const queued = this.#queued.get(key);
    if (queued === undefined) return;
    this.#queued.delete(key);
    for (const message of queued.messages) queued.write(message);
  }

  /** Drops what is queued for a connection that closed. */
  forget(key: Key): void {
    this.#queued.delete(key);
  }

  readonly #drainChunk = (): void => {
    let written = 0;
    for (const key of this.#queued.keys()) {
      if (written === STAGGER_CHUNK) break;
      this.catchUp(key);
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
