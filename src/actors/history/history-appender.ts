// What the actor and its turns need of the one writer of a thread's history, whichever store
// holds it: a rollout file (files/rollout-appender.ts) or the PostgreSQL thread store
// (postgres/postgres-appender.ts). Both take whole JSONL records in call order and land each
// batch whole or not at all, so a turn's writes (../turn/turn-writes.ts) mean the same on
// either.

import type { TurnEndReceipt } from '../../common/turn-end-revision.js';

/**
 * Paginated history: each line is stamped with its ordinal as it is written. `next` is the
 * ordinal of the history's next line (its last record's + 1, or 0 for a new one).
 */
export interface OrdinalStamp {
  next: number;
  stamp(line: string, ordinal: number): string;
}

export interface AppendOptions {
  /** The batch may wait a while to go with the next ones (see `append`). */
  lingering?: boolean;
  /** The batch ends a turn: a store that keeps read states stores the turn's receipt with it. */
  readReceipt?: TurnEndReceipt;
}

export interface HistoryAppender {
  /** The paginated ordinal a line appended now will get if everything queued before it lands; null without ordinals. */
  peekOrdinal(): number | null;
  /** True after a failed append, until `reset()`. */
  readonly failed: boolean;
  /**
   * Appends `lines` (each a record without its '\n') as one batch, after every batch queued
   * before it. A `lingering` batch may wait, a short while at most, to go with the next ones
   * (a store with a round trip per write); `flush()` sends it.
   */
  append(lines: string[], options?: AppendOptions): Promise<void>;
  /** Sends every lingering batch now. */
  flush(): void;
  /** Lets appends continue after a failure, once the caller has settled what the gap means; call it with nothing pending. */
  reset(): 'ready' | 'unrecoverable';
  /** The writer lost the thread: nothing more lands, not even batches already queued. */
  revoke(reason: string): void;
  /** Waits for queued appends, then lets go of the store. Idempotent. */
  close(): Promise<void>;
}
