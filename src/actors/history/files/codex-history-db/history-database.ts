// thread-host's connection to the reference's paginated history database
// (thread_history_1.sqlite), one per database per pool worker, opened on first use: a
// PinnedDatabase (src/common/codex-db/pinned-database.ts: written only when it exists, is in
// WAL mode and has codex 0.171.0's migrations; never waited for by blocking) running the
// projection's statements. It deletes no row. A write that finds the lock taken returns 'busy'
// at once and the caller tries again later (thread-history-projector.ts), so the worker's
// other actors keep running while the reference holds its write lock.
import { PinnedDatabase, type Statements } from '../../../../common/codex-db/pinned-database.js';
import { PINNED_HISTORY_MIGRATIONS } from './pinned-migrations.js';
import type { Checkpoint, PlacedLine } from './rollout-tail.js';
import { APPLY_SQL } from './projection-sql.js';

/** How an attempt to write a tail ended. */
export type ApplyOutcome =
  | { kind: 'applied' }
  /** Another connection holds the write lock: nothing written, try again later. */
  | { kind: 'busy' }
  /** The checkpoint moved since it was read: nothing written. */
  | { kind: 'moved'; found: Checkpoint | null }
  | { kind: 'unusable'; reason: string };

type ApplyStatements = Statements<keyof typeof APPLY_SQL>;

export class HistoryDatabase {
  readonly #database: PinnedDatabase<keyof typeof APPLY_SQL>;

  constructor(path: string, deadlineMs: number) {
    this.#database = new PinnedDatabase({ path, deadlineMs, migrations: PINNED_HISTORY_MIGRATIONS, release: 'codex 0.171.0', sql: APPLY_SQL });
  }

  get path(): string {
    return this.#database.path;
  }

  /** How long a writer waits for another connection's write lock before it gives up (the caller's loop). */
  get deadlineMs(): number {
    return this.#database.deadlineMs;
  }

  /** The thread's checkpoint (null: never projected), or why this database is not written. */
  checkpoint(threadId: string): { kind: 'checkpoint'; at: Checkpoint | null } | { kind: 'busy' } | { kind: 'unusable'; reason: string } {
    const read = this.#database.read('reading the checkpoint', (s) => readCheckpoint(s, threadId));
    return read.kind === 'done' ? { kind: 'checkpoint', at: read.value } : read;
  }

  /**
   * In one BEGIN IMMEDIATE transaction: checks that the thread's checkpoint is still `from`,
   * applies `lines` as the reference applies them, and moves the checkpoint to `next`.
   */
  apply(threadId: string, from: Checkpoint, lines: readonly PlacedLine[], next: Checkpoint): ApplyOutcome {
    const written = this.#database.write((s): ApplyOutcome => {
      const found = readCheckpoint(s, threadId);
      const expected = found ?? { offset: 0, ordinal: 0 };
      if (expected.offset !== from.offset || expected.ordinal !== from.ordinal) return { kind: 'moved', found };
      for (const line of lines) applyLine(s, threadId, line);
      s.upsertCheckpoint.run(threadId, next.offset, next.ordinal);
      return { kind: 'applied' };
    });
    return written.kind === 'done' ? written.value : written;
  }

  /** Why this database is not written now (missing, another schema); null when it is usable. */
  refusal(): string | null {
    return this.#database.refusal();
  }

  /** True the first time a kind of refusal is noted for this database: it is logged once. */
  firstNotice(category: string): boolean {
    return this.#database.firstNotice(category);
  }

  close(): void {
    this.#database.close();
  }
}

function readCheckpoint(s: ApplyStatements, threadId: string): Checkpoint | null {
  const row = s.selectCheckpoint.get(threadId) as { offset: number; ordinal: number } | undefined;
  return row === undefined ? null : { offset: row.offset, ordinal: row.ordinal };
}

// The reference's `apply_change_set` for one line: turns first, then items.
function applyLine(s: ApplyStatements, threadId: string, line: PlacedLine): void {
  for (const turn of line.turns) {
    const terminal = turn.status !== 'inProgress';
    s.upsertTurn.run(
      threadId,
      turn.turnId,
      line.ordinal,
      line.startOffset,
      terminal ? line.ordinal : null,
      terminal ? line.endOffset : null,
      turn.status,
      turn.errorJson,
      turn.startedAt,
      turn.completedAt,
      turn.durationMs,
      turn.rootTurnId,
    );
    s.fillTurnSummary.run({ thread: threadId, turn: turn.turnId, ordinal: line.ordinal });
  }
  for (const item of line.items) {
    s.upsertItem.run(threadId, item.turnId, item.itemId, line.ordinal, line.ordinal, item.startedAtMs, item.startedAtMs, item.completedAtMs, item.itemJson, item.itemJson);
    if (item.itemType === 'userMessage') s.noteFirstUserItem.run(item.itemId, threadId, item.turnId);
  }
}
