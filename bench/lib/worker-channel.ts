// A worker thread of the bench, spoken to one awaited event at a time: events queue in arrival
// order, and the wait for the next one fails on an event of another type, on the worker's own
// `failed` event or error, and on its exit (a worker that died quietly must not hang the bench).
import type { Worker } from 'node:worker_threads';

/** What every channel's events have in common: a type, and the failure each worker may report. */
export type ChannelEvent = { type: string } | { type: 'failed'; error: string };

export class WorkerChannel<Command, Event extends ChannelEvent> {
  readonly #events: Event[] = [];
  #wake: (() => void) | null = null;
  #gone: string | null = null;

  constructor(
    /** Names the worker in failures: "huge-line sender: …". */
    private readonly name: string,
    private readonly worker: Worker,
  ) {
    worker.on('message', (event: Event) => this.#push(event));
    worker.on('error', (error) => this.#push({ type: 'failed', error: error.message } as Event));
    worker.on('exit', (code) => {
      this.#gone = `${name} worker exited (${code})`;
      this.#wake?.();
    });
  }

  send(command: Command): void {
    this.worker.postMessage(command);
  }

  async next<T extends Event['type']>(type: T): Promise<Extract<Event, { type: T }>> {
    for (;;) {
      const event = this.#events.shift();
      if (event?.type === 'failed') throw new Error(`${this.name}: ${(event as { error: string }).error}`);
      if (event !== undefined && event.type !== type) throw new Error(`${this.name}: expected ${type}, got ${event.type}`);
      if (event !== undefined) return event as Extract<Event, { type: T }>;
      if (this.#gone !== null) throw new Error(this.#gone);
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  #push(event: Event): void {
    this.#events.push(event);
    this.#wake?.();
  }
}
