// Group commit for the PostgreSQL appender: batches handed over while a statement is in flight
// wait for it, then go to the store together, as one statement and one commit. On a durable
// store each commit waits for its WAL flush, so a turn whose start is still committing when its
// reply arrives (a fast model) commits the rest at once instead of batch by batch. Order is
// kept: groups run one at a time, each holding its batches in call order. A group lands or
// fails whole, as one statement does; each batch's promise says which.

interface Waiting {
  lines: string[];
  settle: (error: Error | null) => void;
}

export class CommitGroups {
  readonly #write: (lines: string[]) => Promise<void>;
  #waiting: Waiting[] = [];
  /** Lines handed to `push` whose group has not settled yet. */
  #queuedLines = 0;
  #draining: Promise<void> | null = null;

  constructor(write: (lines: string[]) => Promise<void>) {
    this.#write = write;
  }

  get queuedLines(): number {
    return this.#queuedLines;
  }

  /** Lands `lines` with whatever else is waiting when the statement ahead of them ends. */
  push(lines: string[]): Promise<void> {
    this.#queuedLines += lines.length;
    const landed = new Promise<void>((resolve, reject) => this.#waiting.push({ lines, settle: (error) => (error === null ? resolve() : reject(error)) }));
    this.#draining ??= this.#drain();
    return landed;
  }

  /** Resolves once nothing waits and nothing is in flight. */
  async idle(): Promise<void> {
    while (this.#draining !== null) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0);
        const lines = group.flatMap((batch) => batch.lines);
        let failure: Error | null = null;
        try {
          await this.#write(lines);
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
