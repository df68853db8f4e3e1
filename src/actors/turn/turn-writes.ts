// The rollout appends of one turn, labelled by what they carry, so that when one fails the
// actor knows what reached the file: the appender cuts a failed write back to whole lines and
// rejects everything queued after it, so the file holds exactly the batches before the first
// failure.
//
//   [session_meta]  [owed end of a turn]  task_started+context+user  agent…  token_count  end line
//       meta              owed                     start               item      item      end
import type { HistoryAppender } from '../history/history-appender.js';
import type { TurnEndReceipt } from '../../common/turn-end-revision.js';

type Label = 'meta' | 'owed' | 'start' | 'item' | 'end';

/** What a turn's appends left in the rollout. */
export interface TurnWritesOutcome {
  /** The first failure; null when every batch landed. */
  failure: Error | null;
  /** Batches that landed, by label (the order above is the order they were queued). */
  landed: ReadonlySet<Label>;
}

/** Queues one turn's batches on the thread's appender; nothing waits until `settle`. */
export class TurnWrites {
  readonly #appender: HistoryAppender | null;
  readonly #writes: Array<{ label: Label; done: Promise<void> }> = [];

  constructor(appender: HistoryAppender | null) {
    this.#appender = appender;
  }

  /**
   * Queues `lines` as one append; a no-op for an ephemeral thread. They may linger until the
   * turn settles (one store round trip for a quick turn's lines), or a short while.
   */
  add(label: Label, lines: string[], readReceipt?: TurnEndReceipt): void {
    if (this.#appender === null || lines.length === 0) return;
    this.#writes.push({ label, done: this.#appender.append(lines, { lingering: true, ...(readReceipt === undefined ? {} : { readReceipt }) }) });
  }

  /** Sends what lingers, then waits for every queued batch. */
  async settle(): Promise<TurnWritesOutcome> {
    this.#appender?.flush();
    const results = await Promise.allSettled(this.#writes.map((write) => write.done));
    const landed = new Set<Label>();
    let failure: Error | null = null;
    results.forEach((result, index) => {
      if (result.status === 'fulfilled') landed.add(this.#writes[index]!.label);
      else failure ??= result.reason instanceof Error ? result.reason : new Error(String(result.reason));
    });
    return { failure, landed };
  }
}
