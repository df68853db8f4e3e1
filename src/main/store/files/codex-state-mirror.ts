// The main thread's side of mirroring thread-host's thread names, read receipts and queues into
// the reference's state and queue databases (state_5.sqlite, queue_1.sqlite), so the reference
// reading the same home shows them: it reads names and read receipts from its state database
// only (session_index.jsonl is not read while a `threads` row exists) and its queue from its
// queue database only. thread-host's own durable copies (session_index.jsonl,
// thread-host-read-state.jsonl, thread-queues/) stay what it answers from; each change is
// handed here after it is written there, and goes to the codex-state worker
// (workers/codex-state.ts, src/codex-state/codex-state-writer.ts), one at a time, in order. Nothing waits for it:
// requests are answered from memory, and the mirror follows. The same worker answers, in
// order with those changes, which queued rows the mirror wrote are still there, for the drain
// of a thread's queue (codex-queue-reconcile.ts), which waits for it with a deadline after its
// reply. Off with the history projection (`codex_history_projection = false`, a lockfile home,
// the PostgreSQL store).
//
// A home codex never ran in has neither database, and every turn's end changes a read
// receipt: whether either exists is asked here first (an async access, at most every
// PRESENCE_RECHECK_MS), so such a home starts no worker and posts nothing per turn (bench case
// `idle-unload`, at once after a turn).
import type { Clock } from '../../../common/clock.js';
import { withDeadline } from '../../../common/deadline.js';
import type {
  CodexQueueRowsReply,
  CodexQueueRowsRequest,
  CodexStateChange,
  CodexStateDatabases,
  CodexStateMirrorReply,
  CodexStateMirrorRequest,
  CodexStateReply,
  CodexStateRequest,
  MirroredReceipt,
  QueuedSubmission,
} from '../../../common/codex-db/codex-state-changes.js';
import type { LogFn } from '../../../common/log.js';
import { Mailbox } from '../../../common/mailbox.js';
import { DedicatedWorker, type JobResult } from '../../dedicated-worker.js';
import { fsPromises } from '../../lazy-builtin.js';

/** Where mirror jobs run: a worker in the host; in-process in tests. */
export interface MirrorJobs {
  run(request: CodexStateRequest): Promise<JobResult<CodexStateReply>>;
  close(): Promise<void>;
}

/**
 * How long one change may take in the worker before it is given up and the worker replaced:
 * far past the wait for the reference's write lock that bounds it there.
 */
export const MIRROR_JOB_DEADLINE_MS = 10_000;

/** How long a finding that the databases exist, or do not, is trusted before it is checked again. */
export const PRESENCE_RECHECK_MS = 2_000;

/** The reason logged when neither database exists, as the worker words it. */
const ABSENT = 'the database does not exist (the reference creates it)';

/**
 * How long the main thread waits for the answer to which queued rows are still there, behind
 * the changes handed over before it (each bounded by the worker's wait for the write lock).
 */
export const QUEUE_ROWS_DEADLINE_MS = 2_000;

/** The workers a host runs for the mirror (the descriptor budget counts them). */
export const CODEX_STATE_MIRROR_WORKERS = 1;

export class CodexStateMirror {
  /** Each change handed over, until it is mirrored or given up on: settled() waits for them all. */
  readonly #mirrored = new Mailbox();
  /** Presence checks in the order of the changes that asked, so changes are posted in order. */
  readonly #presenceChecks = new Mailbox();
  #presence: { any: boolean; atMs: number } | null = null;
  readonly #absenceNoticed = new Set<string>();

  /**
   * The mirror in the codex-state worker (`filename`: workers/codex-state.ts), started with its
   * first change, so a start that mirrors nothing before its first reply never loads it.
   */
  static inWorker(options: { filename: string; databases: CodexStateDatabases; clock: Clock; log: LogFn }): CodexStateMirror {
    const jobs = new DedicatedWorker<CodexStateRequest, CodexStateReply>({
      filename: options.filename,
      name: 'codex-state mirror',
      deadlineMs: MIRROR_JOB_DEADLINE_MS,
      clock: options.clock,
      log: options.log,
      describe: describeRequest,
    });
    return new CodexStateMirror(jobs, options.databases, options.clock, options.log);
  }

  constructor(
    private readonly jobs: MirrorJobs,
    private readonly databases: CodexStateDatabases,
    private readonly clock: Clock,
    private readonly log: LogFn,
  ) {}

  /** A thread was renamed (session_index.jsonl holds it). */
  readonly nameSet = (threadId: string, name: string): void => this.#mirror({ kind: 'name', threadId, name });

  /** A thread's read receipt changed, or was forgotten (null), in thread-host-read-state.jsonl. */
  readonly receiptRecorded = (threadId: string, receipt: MirroredReceipt | null): void => this.#mirror({ kind: 'readReceipt', threadId, receipt });

  /**
   * A thread's queue went from `before` to `after` in thread-queues/. `rowsWritten` hears the
   * submissions of `after` that have a row in the queue database once the change committed
   * (null when it was not written), before settled() settles (queue-mirror-marks.ts).
   */
  readonly queueChanged = (
    threadId: string,
    before: readonly QueuedSubmission[],
    after: readonly QueuedSubmission[],
    rowsWritten?: (rows: string[] | null) => Promise<void>,
  ): void => this.#mirror({ kind: 'queue', threadId, before, after, nowMs: this.clock.now() }, (reply) => rowsWritten?.(reply?.queuedRows ?? null));

  /**
   * Which of `ids` (queued submissions of the thread whose rows were written) still have their
   * row, asked after every change handed over before it, within QUEUE_ROWS_DEADLINE_MS; or
   * why that could not be told (no database, another connection holding it, the deadline).
   */
  queuedRowsPresent(threadId: string, ids: string[]): Promise<CodexQueueRowsReply> {
    const request: CodexQueueRowsRequest = { kind: 'codexQueueRows', database: this.databases.queue, threadId, ids };
    // Behind the gate: after every change handed over before it has been posted.
    const asked = this.#presenceChecks.settled().then(() => this.jobs.run(request)).then((result): CodexQueueRowsReply => {
      if (result.kind === 'failed') return { kind: 'codexQueueUnknown', reason: `the mirror's worker failed (${result.reason})` };
      const reply = result.reply;
      if (reply.kind === 'codexQueueRows' || reply.kind === 'codexQueueUnknown') return reply;
      return { kind: 'codexQueueUnknown', reason: reply.kind === 'failed' ? reply.message : `unexpected answer ${reply.kind}` };
    });
    return withDeadline(asked, QUEUE_ROWS_DEADLINE_MS, this.clock, (): CodexQueueRowsReply => ({ kind: 'codexQueueUnknown', reason: `no answer within ${QUEUE_ROWS_DEADLINE_MS} ms` }));
  }

  /** A thread was deleted: its row, its receipt and its queued input go, as the reference deletes them. */
  readonly threadDeleted = (threadId: string): void => this.#mirror({ kind: 'threadDeleted', threadId });

  /** Settles once every change handed over so far is mirrored or given up on. */
  settled(): Promise<void> {
    return this.#mirrored.settled();
  }

  close(): Promise<void> {
    return this.jobs.close();
  }

  #mirror(change: CodexStateChange, mirrored?: (reply: CodexStateMirrorReply | null) => Promise<void> | undefined): void {
    const request: CodexStateMirrorRequest = { kind: 'mirrorCodexState', databases: this.databases, change };
    const present = this.#presenceChecks.post(() => this.#anyPresent(change.threadId));
    const done = present
      .then(async (any) => {
        if (!any) return mirrored?.(null);
        const reply = this.#report(request, await this.jobs.run(request));
        return mirrored?.(reply);
      })
      .catch((error: unknown) => this.log('warn', 'could not record what was mirrored into the reference databases', { ...describeRequest(request), error: String(error) }));
    void this.#mirrored.post(() => done);
  }

  // Whether either database exists, from the last finding while it is fresh. When neither does
  // the change is dropped, as the worker would drop it, and that is said once per database.
  async #anyPresent(threadId: string): Promise<boolean> {
    const known = this.#presence;
    if (known !== null && this.clock.now() - known.atMs < PRESENCE_RECHECK_MS) return known.any;
    const paths = [this.databases.state, this.databases.queue];
    const found = await Promise.all(paths.map((path) => fsPromises().access(path).then(() => true, () => false)));
    const any = found.some(Boolean);
    this.#presence = { any, atMs: this.clock.now() };
    if (!any) {
      for (const database of paths.filter((path) => !this.#absenceNoticed.has(path))) {
        this.#absenceNoticed.add(database);
        this.log('info', 'not mirroring into the reference database', { database, threadId, reason: ABSENT });
      }
    }
    return any;
  }

  #report(request: CodexStateMirrorRequest, result: JobResult<CodexStateReply>): CodexStateMirrorReply | null {
    if (result.kind === 'failed') {
      this.log('warn', 'could not mirror a thread change into the reference databases', { ...describeRequest(request), reason: result.reason });
      return null;
    }
    const reply = result.reply;
    if (reply.kind === 'failed') {
      this.log('warn', 'could not mirror a thread change into the reference databases', { ...describeRequest(request), error: reply.stack ?? reply.message });
      return null;
    }
    if (reply.kind !== 'mirrored') return null;
    for (const notice of reply.notices) this.log('info', 'not mirroring into the reference database', { ...notice });
    return reply;
  }
}

/** What the log says of a job: the change's kind (or the lookup) and its thread. */
function describeRequest(request: CodexStateRequest): Record<string, unknown> {
  if (request.kind === 'mirrorCodexState') return { request: request.change.kind, threadId: request.change.threadId };
  return { request: 'codexQueueRows', threadId: request.threadId };
}
