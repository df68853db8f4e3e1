// Group commit for the PostgreSQL appender: batches handed over while a statement is in flight
// wait for it, then go to the store together, as one statement and one commit. On a durable
// store each commit waits for its WAL flush, so a turn whose start is still committing when its
// reply arrives (a fast model) commits the rest at once instead of batch by batch. Order is
// kept: groups run one at a time, each holding its batches in call order. A group lands or
// fails whole, as one statement does; each batch's promise says which.
//
// A lingering batch (a turn's start, its items) does not start a statement of its own: it waits
// for the next batch that does, for `flush()` (the turn settling), or for LINGER_MS at most, so
// a quick turn costs one round trip to the store instead of two (bench case turn-sequential
// with --thread-store both). Nothing waits on a lingering batch but the turn that queued it.

/**
 * How long a lingering batch may wait for the rest of its turn. Long next to a turn on the mock
 * model; short next to the seconds of a turn on a real model, whose lines then go in while it
 * runs.
 */
export const LINGER_MS = 1_000;

interface Waiting<Extra> {
  lines: string[];
  /** What the batch's statement also stores (a turn's read receipt); a group takes its last batch's. */
  extra: Extra | null;
  settle: (error: Error | null) => void;
}

export class CommitGroups<Extra = never> {
  readonly #write: (lines: string[], extra: Extra | null) => Promise<void>;
  #waiting: Array<Waiting<Extra>> = [];
  /** Lines handed to `push` whose group has not settled yet. */
  #queuedLines = 0;
  #draining: Promise<void> | null = null;
  #lingering: NodeJS.Timeout | null = null;

  constructor(write: (lines: string[], extra: Extra | null) => Promise<void>) {
    this.#write = write;
  }

  get queuedLines(): number {
    return this.#queuedLines;
  }

  /** Lands `lines` with whatever else is waiting when the statement ahead of them ends (`lingering`: or later, see above). */
  push(lines: string[], lingering = false, extra: Extra | null = null): Promise<void> {
    this.#queuedLines += lines.length;
    const landed = new Promise<void>((resolve, reject) => this.#waiting.push({ lines, extra, settle: (error) => (error === null ? resolve() : reject(error)) }));
    if (!lingering) this.flush();
    else if (this.#draining === null) this.#lingering ??= setTimeout(() => this.flush(), LINGER_MS).unref();
    return landed;
  }

  /** Sends whatever waits, lingering batches included. */
  flush(): void {
    if (this.#lingering !== null) clearTimeout(this.#lingering);
    this.#lingering = null;
    if (this.#waiting.length > 0) this.#draining ??= this.#drain();
  }

  /** Resolves once nothing waits and nothing is in flight (what lingers is sent). */
  async idle(): Promise<void> {
    this.flush();
    while (this.#draining !== null) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0);
        const lines = group.flatMap((batch) => batch.lines);
        const extra = group.reduce<Extra | null>((last, batch) => batch.extra ?? last, null);
        let failure: Error | null = null;
        try {
          await this.#write(lines, extra);
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
        }
        this.#queuedLines -= lines.length;
        for (const batch of group) batch.settle(failure);
      }
    } finally {
      this.#draining = null;
    }
  }
}
