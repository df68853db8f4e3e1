// One connection's input, applied in arrival order even when a large line is parsed off the
// main thread: what arrives after it (lines, dropped lines, the close) waits for its outcome,
// exactly as if it had been parsed in place. Other connections do not wait: each has its own.
// With nothing waiting, a step runs at once, synchronously, as input always did.
//
//   push(line A)           → runs now
//   pushAfter(parse(L), …) → waits for L's outcome ─┐
//   push(line B)           → queued ────────────────┤ then L's step, then B, in that order
//   push(closed)           → queued ────────────────┘
import type { LogFn } from '../../common/log.js';

interface Step {
  /** Settles when the step may run; null for a step that is ready at once. */
  ready: Promise<unknown> | null;
  run(value: unknown): void;
}

export class ConnectionInput {
  readonly #queue: Step[] = [];

  constructor(private readonly log: LogFn) {}

  /** Runs `step` now when nothing is waiting, else after everything pushed before it. */
  push(step: () => void): void {
    if (this.#queue.length === 0) this.#run(step, undefined);
    else this.#queue.push({ ready: null, run: step });
  }

  /** Runs `step` with `ready`'s value once it settles and everything pushed before it has run. */
  pushAfter<T>(ready: Promise<T>, step: (value: T) => void): void {
    this.#queue.push({ ready, run: step as (value: unknown) => void });
    if (this.#queue.length === 1) void this.#drain();
  }

  /** Steps still waiting (the head is the one being awaited). */
  get waiting(): number {
    return this.#queue.length;
  }

  // Runs the queue front to back; only one drain runs at a time (started when the queue
  // went from empty to one awaited step), and it ends when the queue is empty.
  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const head = this.#queue[0]!;
      let value: unknown;
      try {
        value = head.ready === null ? undefined : await head.ready;
      } catch (error) {
        // Callers pass promises that never reject; if one does, its step is skipped, not the rest.
        this.log('error', 'input step failed before it ran', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        this.#queue.shift();
        continue;
      }
      this.#queue.shift();
      this.#run(head.run, value);
    }
  }

  #run(step: (value: unknown) => void, value: unknown): void {
    try {
      step(value);
    } catch (error) {
      this.log('error', 'input step failed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  }
}
