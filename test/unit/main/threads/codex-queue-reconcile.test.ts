// Queued input thread-host mirrored into the reference's queue (a queue_1.sqlite of codex
// 0.171.0's schema, test/fixtures/codex-state-db) and the reference then ran is not run again:
// the queue store, its mirror hook, the marks, the main thread's CodexStateMirror and the
// mirror worker's code run in-process, on a fake clock. The reference running a row
// is what it does to the database: it deletes the row.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, expect, test } from 'vitest';
import type { CodexStateRequest, QueuedSubmission } from '../../../../src/common/codex-db/codex-state-changes.js';
import { CodexStateMirror, QUEUE_ROWS_DEADLINE_MS } from '../../../../src/main/store/files/codex-state-mirror.js';
import { CodexQueueReconcile, RETRY_FIRST_MS, RETRY_MAX_MS } from '../../../../src/main/store/files/queues/codex-queue-reconcile.js';
import { mirroredQueueChanges, QueueMirrorMarks } from '../../../../src/main/store/files/queues/queue-mirror-marks.js';
import { ThreadQueueStore } from '../../../../src/main/store/files/queues/thread-queue-store.js';
import { PostgresQueues } from '../../../../src/main/store/postgres/postgres-queues.js';
import { CodexStateWriter } from '../../../../src/codex-state/codex-state-writer.js';
import { FakeClock } from '../../../helpers/fake-clock.js';
import { createReferenceStateDb } from '../../../helpers/reference-state-db.js';
import { queuedSubmission } from '../../../helpers/queued-submission.js';
import type { ThreadId } from '../../../../src/common/thread-id.js';

const THREAD = '01a2449b-b3ea-7292-9fa5-3781a2e78e5b' as ThreadId;
const submission = queuedSubmission;
const localImage = (id: string) => submission(id, [{ type: 'localImage', path: '/tmp/p.png' }]);

let dir: string;
let writer: CodexStateWriter;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'codex-queue-reconcile-'));
  writer = new CodexStateWriter(50);
});
afterEach(() => {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A host mirroring into `queue_1.sqlite` in its home (created unless `database` is false). */
function host({ database = true, mirroring = true } = {}) {
  const databases = { state: join(dir, 'state_5.sqlite'), queue: join(dir, 'queue_1.sqlite') };
  if (database) createReferenceStateDb('queue', databases.queue);
  const clock = new FakeClock();
  const logged: Array<[string, string, Record<string, unknown>]> = [];
  const log = (level: string, msg: string, fields: Record<string, unknown> = {}) => void logged.push([level, msg, fields]);
  const notified: unknown[] = [];
  const lookups = { stalled: false };
  const jobs = {
    run: async (request: CodexStateRequest) => {
      if (request.kind === 'codexQueueRows' && lookups.stalled) return new Promise<never>(() => undefined);
      const reply = request.kind === 'codexQueueRows' ? await writer.queuedRows(request) : await writer.apply(request as never);
      return { kind: 'done' as const, reply };
    },
    close: async () => undefined,
  };
  const mirror = new CodexStateMirror(jobs, databases, clock, log);
  const marks = new QueueMirrorMarks(dir);
  const store = new ThreadQueueStore(dir, mirroredQueueChanges(mirroring ? mirror : null, marks));
  // What the files store opens, its announcement the host's (thread-queue.ts: queueChangedHere).
  const reconcileOf = (over: CodexStateMirror | null) =>
    new CodexQueueReconcile({ store, marks, mirror: over, clock, log, announce: (threadId) => void notified.push({ to: ['subscriber'], method: 'thread/queue/changed', params: { threadId } }) });
  const reconciler = reconcileOf(mirroring ? mirror : null);
  const retries: number[] = [];
  return {
    mirror,
    reconcileOf,
    clock,
    logged,
    notified,
    lookups,
    retries,
    /** Queues `submissions` after what is queued, and waits for the mirror and the marks. */
    add: async (...submissions: QueuedSubmission[]) => {
      await store.replace(THREAD, [...(await store.get(THREAD)), ...submissions]);
      await mirror.settled();
    },
    queued: async () => (await store.get(THREAD)).map((queued) => queued.id),
    marks: () => {
      const file = join(dir, 'thread-queue-mirror', `${THREAD}.json`);
      return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
    },
    reconcile: (by: CodexQueueReconcile = reconciler) => by.reconcile(THREAD, () => void retries.push(clock.now())),
    referenceRuns: (id: string) => sql(databases.queue, 'DELETE FROM queued_items WHERE id = ?', id),
    migrated: () => sql(databases.queue, "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (3, 'later', 1, unhex('AB'), 1)"),
    unmigrated: () => sql(databases.queue, 'DELETE FROM _sqlx_migrations WHERE version = 3'),
  };
}

function sql(path: string, statement: string, ...values: unknown[]): void {
  const db = new Database(path);
  db.prepare(statement).run(...values);
  db.close();
}

test('input mirrored and then run by the reference leaves the queue unrun, announced as a delete', async () => {
  const h = host();
  await h.add(submission('x'), submission('y'));
  expect(h.marks()).toEqual({ threadId: THREAD, mirrored: ['x', 'y'] });
  h.referenceRuns('x');
  expect(await h.reconcile()).toEqual('run');
  expect(await h.queued()).toEqual(['y']);
  expect(h.notified).toEqual([{ to: ['subscriber'], method: 'thread/queue/changed', params: { threadId: THREAD } }]);
  expect(h.logged).toEqual([['info', 'queued input the reference ran or deleted leaves the queue unrun', { threadId: THREAD, queuedSubmissionIds: ['x'] }]]);
  // Its removal is mirrored too, and the mark goes with it.
  await h.mirror.settled();
  expect(h.marks()).toEqual({ threadId: THREAD, mirrored: ['y'] });
  expect(h.clock.activeTimers()).toEqual(0);
});

test('input never mirrored runs: no database, or a kind the mirror writes no row for', async () => {
  const without = host({ database: false });
  await without.add(submission('x'));
  expect(without.marks()).toEqual(null);
  expect(await without.reconcile()).toEqual('run');
  expect(await without.queued()).toEqual(['x']);
  expect(without.notified).toEqual([]);

  rmSync(join(dir, 'thread-queue-mirror'), { recursive: true, force: true });
  rmSync(join(dir, 'thread-queues'), { recursive: true, force: true });
  writer.close();
  const image = host();
  await image.add(localImage('picture'));
  expect(image.marks()).toEqual(null);
  expect(await image.reconcile()).toEqual('run');
  expect(await image.queued()).toEqual(['picture']);
});

test('input mirrored whose row is still there runs', async () => {
  const h = host();
  await h.add(submission('x'));
  expect(await h.reconcile()).toEqual('run');
  expect(await h.queued()).toEqual(['x']);
  expect(h.notified).toEqual([]);
});

test('a database that cannot tell holds mirrored input, looks again after a doubling pause, and runs it once it can', async () => {
  const h = host();
  await h.add(submission('x'));
  h.migrated();
  expect(await h.reconcile()).toEqual('hold');
  expect(await h.queued()).toEqual(['x']);
  expect(h.logged).toEqual([
    ['warn', 'queued input waits: the reference queue cannot tell whether the reference already ran it', { threadId: THREAD, queuedSubmissionId: 'x', reason: "its migrations are not codex 0.171.0's (versions 1,2,3)" }],
  ]);
  // A second drain meanwhile schedules no second look.
  expect(await h.reconcile()).toEqual('hold');
  expect(h.clock.activeTimers()).toEqual(1);
  h.clock.advance(RETRY_FIRST_MS);
  expect(h.retries).toEqual([RETRY_FIRST_MS]);
  expect(await h.reconcile()).toEqual('hold');
  h.clock.advance(2 * RETRY_FIRST_MS);
  expect(h.retries).toEqual([RETRY_FIRST_MS, 3 * RETRY_FIRST_MS]);
  // The thread unloaded meanwhile (that look drained nothing): a hold long after is a new wait.
  h.clock.advance(RETRY_MAX_MS + 1);
  expect(await h.reconcile()).toEqual('hold');
  h.clock.advance(RETRY_FIRST_MS);
  expect(h.retries).toEqual([RETRY_FIRST_MS, 3 * RETRY_FIRST_MS, 4 * RETRY_FIRST_MS + RETRY_MAX_MS + 1]);
  expect(h.logged).toHaveLength(2);
  h.unmigrated();
  expect(await h.reconcile()).toEqual('run');
  expect(await h.queued()).toEqual(['x']);
  expect(h.clock.activeTimers()).toEqual(0);
  expect(h.logged.map(([level, , fields]) => [level, fields.queuedSubmissionId])).toEqual([
    ['warn', 'x'],
    ['warn', 'x'],
  ]);
});

test('an answer later than the deadline holds mirrored input', async () => {
  const h = host();
  await h.add(submission('x'));
  h.lookups.stalled = true;
  const verdict = h.reconcile();
  await new Promise((resolve) => setTimeout(resolve, 10));
  h.clock.advance(QUEUE_ROWS_DEADLINE_MS);
  expect(await verdict).toEqual('hold');
  expect(h.logged.map(([, , fields]) => fields.reason)).toEqual([`no answer within ${QUEUE_ROWS_DEADLINE_MS} ms`]);
  expect(await h.queued()).toEqual(['x']);
});

test('a host that no longer mirrors holds mirrored input', async () => {
  const h = host();
  await h.add(submission('x'));
  expect(await h.reconcile(h.reconcileOf(null))).toEqual('hold');
  expect(h.logged.map(([, , fields]) => fields.reason)).toEqual(['the host does not mirror into the reference databases now']);
});

test("a PostgreSQL host's queue is its store's: mirrored files left in the home neither hold nor change it", async () => {
  const h = host();
  await h.add(submission('x'));
  const onStore = new PostgresQueues(null as never, 'origin');
  expect(await onStore.beforeRun()).toEqual('run');
  expect([await h.queued(), h.logged, h.clock.activeTimers()]).toEqual([['x'], [], 0]);
});

test('when the database cannot tell, input before the mirrored one that never had a row runs', async () => {
  const h = host();
  await h.add(localImage('picture'), submission('x'));
  expect(h.marks()).toEqual({ threadId: THREAD, mirrored: ['x'] });
  h.migrated();
  expect(await h.reconcile()).toEqual('run');
  expect(await h.queued()).toEqual(['picture', 'x']);
  expect(h.clock.activeTimers()).toEqual(0);
});
