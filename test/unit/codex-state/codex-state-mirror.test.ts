// thread-host's names, read receipts and queues, mirrored into the reference's state and queue
// databases, give the rows codex-cli 0.171.0 wrote for the same operations
// (test/fixtures/codex-state-db/steps.json, recorded by its record-reference-rows.mjs): the
// recording is replayed step by step through thread-host's own stores (ThreadNames,
// ThreadReadStates, ThreadQueueStore), their hooks, the main thread's CodexStateMirror and the
// codex-state worker's code run in-process, with the ids, revisions and clock the
// reference had; after each step every row of the four tables equals the recorded rows.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { CodexStateRequest, QueuedSubmission } from '../../../src/common/codex-db/codex-state-changes.js';
import { CodexStateMirror } from '../../../src/main/store/files/codex-state-mirror.js';
import { ThreadNames } from '../../../src/main/store/files/thread-names.js';
import { ThreadReadStates } from '../../../src/main/store/files/thread-read-states.js';
import { ThreadQueueStore } from '../../../src/main/store/files/queues/thread-queue-store.js';
import { CodexStateWriter } from '../../../src/codex-state/codex-state-writer.js';
import { createReferenceStateDb, setThreadRows, stateFixture, stateRows, type StateRows } from '../../helpers/reference-state-db.js';
import type { ThreadId } from '../../../src/common/thread-id.js';

interface Step {
  method?: string;
  params?: Record<string, any>;
  answer?: Record<string, any>;
  turn?: string;
  turnId?: string;
  resumed?: string;
  rows: StateRows;
}

const { threadId, steps } = stateFixture<{ threadId: ThreadId; steps: Step[] }>('steps.json');

let dir: string;
let writer: CodexStateWriter;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'codex-state-'));
  writer = new CodexStateWriter();
});
afterEach(() => {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

/** thread-host's stores on a fresh home, mirroring into fresh databases of the reference's schema. */
function setUp() {
  const databases = { state: join(dir, 'state_5.sqlite'), queue: join(dir, 'queue_1.sqlite') };
  createReferenceStateDb('state', databases.state);
  createReferenceStateDb('queue', databases.queue);
  // The reference's clock at each step: set from the times it recorded.
  let at = 0;
  const clock = { now: () => at, set: (ms: number) => void (at = ms), setTimeout: () => 0, clearTimeout: () => undefined };
  const logged: unknown[] = [];
  const jobs = { run: async (request: CodexStateRequest) => ({ kind: 'done' as const, reply: await writer.apply(request as never) }), close: async () => undefined };
  const mirror = new CodexStateMirror(jobs, databases, clock, (...line) => logged.push(line));
  const revisions: string[] = [];
  const home = join(dir, 'home');
  mkdirSync(home);
  return {
    databases,
    clock,
    logged,
    mirror,
    /** The revisions the next changes of the read state get, in order. */
    revisions,
    names: new ThreadNames(home, () => undefined, mirror.nameSet),
    readStates: new ThreadReadStates(home, () => undefined, () => revisions.shift()!, mirror.receiptRecorded),
    queue: new ThreadQueueStore(home, mirror.queueChanged),
    rows: () => stateRows(databases.state, databases.queue),
  };
}

const queuedRow = (rows: StateRows, id: string) => rows.queued_items.find((row) => row.id === id)!;

test('every step of the recording gives the reference\'s rows', async () => {
  const side = setUp();
  const { readStates, names, queue, mirror, clock } = side;
  const submissions = new Map<string, QueuedSubmission>();
  for (const [index, step] of steps.entries()) {
    const p = step.params ?? {};
    if (step.turn !== undefined || step.resumed !== undefined) {
      // The reference's own writes for a turn (its `threads` row) are not thread-host's to mirror.
      setThreadRows(side.databases.state, step.rows.threads);
    }
    if (step.turn !== undefined) {
      side.revisions.push(step.rows.thread_read_receipts[0]!.revision as string);
      readStates.turnEnded(threadId, step.turnId!, clock.now());
    } else if (step.resumed !== undefined) {
      // The queued input starts, C then B, one turn each; the receipt's last revision and turn are recorded.
      const [receipt] = step.rows.thread_read_receipts;
      let current = await queue.get(threadId);
      for (const last of [false, true]) {
        current = current.slice(1);
        await queue.replace(threadId, current);
        side.revisions.push(last ? (receipt!.revision as string) : 'in-between');
        readStates.turnEnded(threadId, last ? (receipt!.last_published_turn as string) : 'first-queued-turn', clock.now());
      }
    } else if (step.method === 'thread/name/set') {
      await names.set(threadId, p.name, clock.now());
    } else if (step.method === 'thread/readState/update') {
      side.revisions.push(step.answer!.readState.revision);
      await readStates.mark(threadId, p.operation.type, p.expectedRevision, clock.now());
    } else if (step.method === 'thread/queue/add') {
      const submission: QueuedSubmission = { ...step.answer!.queuedSubmission, input: p.input };
      submissions.set(submission.id, submission);
      clock.set(queuedRow(step.rows, submission.id).created_at_ms as number);
      await queue.replace(threadId, [...(await queue.get(threadId)), submission]);
    } else if (step.method === 'thread/queue/update') {
      clock.set(queuedRow(step.rows, p.queuedSubmissionId).updated_at_ms as number);
      const metadata = p.responsesapiClientMetadata;
      const current = await queue.get(threadId);
      await queue.replace(
        threadId,
        current.map((s) => (s.id === p.queuedSubmissionId ? { ...s, input: p.input, ...(metadata !== null && Object.keys(metadata).length > 0 ? { responsesapiClientMetadata: metadata } : {}) } : s)),
      );
    } else if (step.method === 'thread/queue/reorder') {
      clock.set(step.rows.queued_items[0]!.updated_at_ms as number);
      const byId = new Map((await queue.get(threadId)).map((s) => [s.id, s]));
      await queue.replace(threadId, p.queuedSubmissionIds.map((id: string) => byId.get(id)!));
    } else if (step.method === 'thread/queue/delete') {
      await queue.replace(threadId, (await queue.get(threadId)).filter((s) => s.id !== p.queuedSubmissionId));
    } else if (step.method === 'thread/delete') {
      await readStates.forget(threadId, clock.now());
      await queue.remove(threadId);
      mirror.threadDeleted(threadId);
    } else {
      throw new Error(`step ${index} is not replayed`);
    }
    await readStates.settled();
    await mirror.settled();
    expect({ index, rows: side.rows() }).toEqual({ index, rows: step.rows });
  }
  expect(side.logged).toEqual([]);
});
