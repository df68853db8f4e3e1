// Mirrors a change thread-host made (and wrote to its own durable copy) into the reference's
// state and queue databases, as the reference itself writes it (codex-state-sql.ts), in the
// codex-state worker (workers/codex-state.ts): one connection per database, opened on first use
// and kept, each change one short BEGIN IMMEDIATE transaction per database. A database that does not exist,
// is not in WAL mode or does not have codex 0.171.0's migrations is left alone (PinnedDatabase).
//
// The write lock is never waited for by blocking: a change that finds it taken is tried again
// asynchronously until MIRROR_DEADLINE_MS, then given up (the database keeps the value it
// had; the next change of the same name or receipt writes the whole value again). What is not
// mirrored is reported once per database and kind, for the host's log.
import type {
  CodexQueueRowsReply,
  CodexQueueRowsRequest,
  CodexStateChange,
  CodexStateMirrorReply,
  CodexStateMirrorRequest,
  MirroredReceipt,
  MirrorNotice,
  QueuedSubmission,
} from '../common/codex-db/codex-state-changes.js';
import { PINNED_QUEUE_MIGRATIONS, PINNED_STATE_MIGRATIONS } from './codex-state-migrations.js';
import { retryWhileBusy } from '../common/codex-db/busy-retry.js';
import { PinnedDatabase, type DatabaseOutcome, type PinnedMigration, type Statements } from '../common/codex-db/pinned-database.js';
import { QUEUE_SQL, STATE_SQL } from './codex-state-sql.js';
import { queuedPayload } from './queued-payload.js';

/** How long a change waits for another connection's write lock before it is given up. */
export const MIRROR_DEADLINE_MS = 250;

type StateStatements = Statements<keyof typeof STATE_SQL>;
type QueueStatements = Statements<keyof typeof QUEUE_SQL>;

/** What a write reports besides its rows: parts of the change it could not write exactly. */
type Skipped = Array<{ category: string; reason: string }>;

export class CodexStateWriter {
  readonly #databases = new Map<string, PinnedDatabase<string>>();

  constructor(private readonly deadlineMs = MIRROR_DEADLINE_MS) {}

  async apply({ databases, change }: CodexStateMirrorRequest): Promise<CodexStateMirrorReply> {
    const notices: MirrorNotice[] = [];
    const state = this.#database(databases.state, PINNED_STATE_MIGRATIONS, STATE_SQL);
    const queue = this.#database(databases.queue, PINNED_QUEUE_MIGRATIONS, QUEUE_SQL);
    const run = async <Names extends string>(database: PinnedDatabase<Names>, body: (s: Statements<Names>) => Skipped) => {
      const outcome = await this.#retried(() => database.write(body));
      const skipped: Skipped = outcome.kind === 'done' ? outcome.value : outcome.kind === 'busy' ? [{ category: 'busy', reason: BUSY }] : [{ category: 'database', reason: outcome.reason }];
      for (const { category, reason } of skipped) {
        if (database.firstNotice(category)) notices.push({ database: database.path, threadId: change.threadId, reason });
      }
      return outcome.kind === 'done';
    };
    switch (change.kind) {
      case 'name':
        await run(state, (s) => setName(s, change.threadId, change.name));
        break;
      case 'readReceipt':
        await run(state, (s) => writeReceipt(s, change.threadId, change.receipt));
        break;
      case 'queue': {
        const rows: string[] = [];
        if (await run(queue, (s) => writeQueue(s, change, rows))) return { kind: 'mirrored', notices, queuedRows: rows };
        break;
      }
      case 'threadDeleted':
        await run(state, (s) => deleteThread(s, change.threadId));
        await run(queue, (s) => (s.deleteThreadItems.run(change.threadId), []));
        break;
    }
    return { kind: 'mirrored', notices };
  }

  /**
   * Which of `ids` still have their row in the thread's queue, read in one snapshot (no write
   * lock; a connection holding the database exclusively is waited for as a writer's lock is).
   */
  async queuedRows({ database: path, threadId, ids }: CodexQueueRowsRequest): Promise<CodexQueueRowsReply> {
    const database = this.#database(path, PINNED_QUEUE_MIGRATIONS, QUEUE_SQL);
    const outcome = await this.#retried(() => database.readPinned('reading queued rows', (s) => s.threadItemIds.all(threadId) as Array<{ id: string }>));
    if (outcome.kind === 'busy') return { kind: 'codexQueueUnknown', reason: 'another connection held the database past the deadline' };
    if (outcome.kind === 'unusable') return { kind: 'codexQueueUnknown', reason: outcome.reason };
    const stored = new Set(outcome.value.map((row) => row.id));
    return { kind: 'codexQueueRows', present: ids.filter((id) => stored.has(id)) };
  }

  close(): void {
    for (const database of this.#databases.values()) database.close();
    this.#databases.clear();
  }

  #database<Names extends string>(path: string, migrations: readonly PinnedMigration[], sql: Readonly<Record<Names, string>>): PinnedDatabase<Names> {
    let database = this.#databases.get(path);
    if (database === undefined) {
      database = new PinnedDatabase<string>({ path, deadlineMs: this.deadlineMs, migrations, release: 'codex 0.171.0', sql });
      this.#databases.set(path, database);
    }
    return database as PinnedDatabase<Names>;
  }

  /** `use` tried again, asynchronously, while another connection holds the lock, until the deadline. */
  #retried<T>(use: () => DatabaseOutcome<T>): Promise<DatabaseOutcome<T>> {
    const deadline = performance.now() + this.deadlineMs;
    return retryWhileBusy(use, (outcome) => outcome.kind === 'busy', () => deadline);
  }
}

const BUSY = 'another connection held its write lock past the deadline; the change was not mirrored';

function setName(s: StateStatements, threadId: string, name: string): Skipped {
  if (s.setName.run(name, threadId).changes > 0) return [];
  // The row holds what only the reference knows (its own reading of the rollout): it makes it
  // when it first lists or reads the thread, and the next rename is mirrored then.
  return [{ category: 'unindexed', reason: 'the reference has no row for the thread yet: its name is not mirrored until it indexes the thread and the thread is renamed again' }];
}

function writeReceipt(s: StateStatements, threadId: string, receipt: MirroredReceipt | null): Skipped {
  if (receipt === null) {
    s.deleteReceipt.run(threadId);
    return [];
  }
  const firstUnread = receipt.firstUnread === null ? null : receipt.firstUnread.type === 'threadStart' ? '' : receipt.firstUnread.turnId;
  s.upsertReceipt.run(threadId, firstUnread, receipt.revision, receipt.lastPublishedTurn);
  return [];
}

function deleteThread(s: StateStatements, threadId: string): Skipped {
  s.deleteReceipt.run(threadId);
  s.deleteThread.run(threadId);
  return [];
}

/**
 * The one operation that took the queue from `before` to `after`, as the reference writes it:
 * rows thread-host removed are deleted (only those: rows the reference queued itself stay),
 * new ones appended, changed ones updated, and a new order written as the reference's reorder
 * writes it. `rows` gets the submissions of `after` that have a row once it commits.
 */
function writeQueue(s: QueueStatements, change: Extract<CodexStateChange, { kind: 'queue' }>, rows: string[]): Skipped {
  const { threadId, before, after, nowMs } = change;
  const skipped: Skipped = [];
  const remaining = new Set(after.map((submission) => submission.id));
  for (const submission of before) if (!remaining.has(submission.id)) s.deleteItem.run(submission.id, threadId);
  const earlier = new Map(before.map((submission) => [submission.id, submission]));
  const written: QueuedSubmission[] = [];
  for (const submission of after) {
    const payload = queuedPayload(submission);
    if (payload.kind === 'unknown') {
      skipped.push({ category: 'input', reason: `${payload.reason} is not mirrored` });
      continue;
    }
    written.push(submission);
    if (!earlier.has(submission.id)) {
      s.insertItem.run({ id: submission.id, thread: threadId, payload: payload.json, now: nowMs });
      continue;
    }
    const stored = s.selectPayload.get(submission.id, threadId) as { payload_json: string } | undefined;
    if (stored !== undefined && stored.payload_json !== payload.json) s.updatePayload.run(payload.json, nowMs, submission.id, threadId);
  }
  const keptOrder = written.filter((submission) => earlier.has(submission.id)).map((submission) => submission.id);
  const priorOrder = before.filter((submission) => keptOrder.includes(submission.id)).map((submission) => submission.id);
  if (keptOrder.join() !== priorOrder.join()) {
    for (const submission of written) s.moveToEnd.run({ id: submission.id, thread: threadId, now: nowMs });
  }
  // What the reference may run of this queue when it resumes the thread (a row it already ran
  // is gone, and stays gone: rows are only inserted for new submissions).
  const stored = new Set((s.threadItemIds.all(threadId) as Array<{ id: string }>).map((row) => row.id));
  rows.splice(0, rows.length, ...after.filter((submission) => stored.has(submission.id)).map((submission) => submission.id));
  return skipped;
}
