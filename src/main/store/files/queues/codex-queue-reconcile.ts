// Queued input runs once, whichever of thread-host and the reference runs it. thread-host
// mirrors its queue into the reference's queue_1.sqlite (codex-state-mirror.ts); the reference,
// when it resumes the thread, runs those rows in order and deletes each as it starts it, and
// its thread/queue/delete deletes one. So before the drain (thread-queue.ts) runs anything, the
// submissions whose rows the mirror wrote (queue-mirror-marks.ts) are looked up in that
// database, in the mirror's worker (after every change handed to it before, with a deadline):
// one whose row is gone was run or deleted by the reference, and leaves thread-host's queue
// unrun (announced with thread/queue/changed, as a delete is). While the thread is loaded here
// thread-host holds its writer lock, so the reference cannot run a row between this look and
// the turn that starts it.
//
// When the database cannot tell (it is gone, busy past the deadline, of another release, or
// the host no longer mirrors), a submission whose row was written may or may not have run
// there. Running it could run it twice, which cannot be undone; holding it loses nothing: it
// stays queued and listed, thread/queue/start still runs it on request, and the look is tried
// again (after a pause that doubles up to RETRY_MAX_MS, while the thread stays loaded and idle,
// and at every drain). So the queue's next submission waits when it is one of those; one that
// never had a row runs as before.
import type { CodexQueueRowsReply } from '../../../../common/codex-db/codex-state-changes.js';
import type { Clock } from '../../../../common/clock.js';
import type { LogFn } from '../../../../common/log.js';
import type { QueueVerdict } from '../../thread-queues.js';
import type { CodexStateMirror } from '../codex-state-mirror.js';
import type { QueueMirrorMarks } from './queue-mirror-marks.js';
import type { ThreadQueueStore } from './thread-queue-store.js';
import type { ThreadId } from '../../../../common/thread-id.js';

/** The first pause before the rows are looked up again after the database could not tell. */
export const RETRY_FIRST_MS = 1_000;
/** The longest pause between two looks at a database that cannot tell. */
export const RETRY_MAX_MS = 30_000;

interface Retry {
  /** The pending look's timer; null once it fired. */
  timer: unknown;
  pauseMs: number;
  /** When the look was due. */
  dueAt: number;
}

export interface CodexQueueReconcileDeps {
  store: ThreadQueueStore;
  marks: QueueMirrorMarks;
  /** The mirror into the reference's databases; null when the host does not mirror now. */
  mirror: CodexStateMirror | null;
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  log: LogFn;
  /** The thread's queue changed here: its subscribers hear thread/queue/changed. */
  announce: (threadId: ThreadId) => void;
}

export class CodexQueueReconcile {
  readonly #retries = new Map<string, Retry>();

  constructor(private readonly deps: CodexQueueReconcileDeps) {}

  /**
   * Drops from the thread's queue the input the reference ran or deleted from its copy, and says
   * whether the next submission may run. `retry` drains again after a pause when it may not.
   */
  async reconcile(threadId: ThreadId, retry: () => void): Promise<QueueVerdict> {
    const { store, mirror, log } = this.deps;
    const marks = await this.deps.marks.get(threadId);
    const mirrored = (await store.get(threadId)).filter((submission) => marks.has(submission.id)).map((submission) => submission.id);
    if (mirrored.length === 0) return this.#settled(threadId);
    const answer: CodexQueueRowsReply =
      mirror === null ? { kind: 'codexQueueUnknown', reason: 'the host does not mirror into the reference databases now' } : await mirror.queuedRowsPresent(threadId, mirrored);
    if (answer.kind === 'codexQueueUnknown') {
      const next = (store.peek(threadId) ?? [])[0];
      if (next === undefined || !marks.has(next.id)) return this.#settled(threadId);
      this.#hold(threadId, next.id, answer.reason, retry);
      return 'hold';
    }
    const present = new Set(answer.present);
    const gone = new Set(mirrored.filter((id) => !present.has(id)));
    // The queue as it is now (a request may have changed it during the look), in memory.
    const current = store.peek(threadId) ?? [];
    const kept = current.filter((submission) => !gone.has(submission.id));
    if (kept.length < current.length) {
      const dropped = current.filter((submission) => gone.has(submission.id)).map((submission) => submission.id);
      log('info', 'queued input the reference ran or deleted leaves the queue unrun', { threadId, queuedSubmissionIds: dropped });
      await store.replace(threadId, kept);
      this.deps.announce(threadId);
    }
    return this.#settled(threadId);
  }

  /** The queue may run: a look still scheduled for the thread is not needed. */
  #settled(threadId: ThreadId): QueueVerdict {
    const pending = this.#retries.get(threadId);
    if (pending !== undefined) {
      this.deps.clock.clearTimeout(pending.timer);
      this.#retries.delete(threadId);
    }
    return 'run';
  }

  #hold(threadId: ThreadId, submissionId: string, reason: string, retry: () => void): void {
    const { clock, log } = this.deps;
    const pending = this.#retries.get(threadId);
    if (pending !== undefined && pending.timer !== null) return;
    // A look that found the thread unloaded or busy drained nothing: holding again long after
    // it is a new wait, said again and looked at soon.
    const continuing = pending !== undefined && clock.now() - pending.dueAt <= RETRY_MAX_MS;
    const pauseMs = continuing ? Math.min(pending.pauseMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
    if (!continuing) {
      log('warn', 'queued input waits: the reference queue cannot tell whether the reference already ran it', { threadId, queuedSubmissionId: submissionId, reason });
    }
    const entry: Retry = { timer: null, pauseMs, dueAt: clock.now() + pauseMs };
    entry.timer = clock.setTimeout(() => {
      entry.timer = null;
      retry();
    }, pauseMs);
    this.#retries.set(threadId, entry);
  }
}
