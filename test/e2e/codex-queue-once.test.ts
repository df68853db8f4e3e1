// Queued input runs once on a home shared with the reference, end to end: the real CLI in a
// home holding a state_5.sqlite and a queue_1.sqlite as codex 0.171.0 creates them. Input
// queued on an unloaded thread is mirrored into the queue database and marked as such
// (thread-queue-mirror/); the reference running it deletes its row, so when thread-host then
// resumes the thread (after a restart here: the mark is durable) it leaves the queue unrun.
// While the database cannot tell (another release's migration), the input waits, and runs
// once it can. Input never mirrored (no database) runs at resume: thread-queue.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { createReferenceStateDb } from '../helpers/reference-state-db.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

let home: string;
let queueDb: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'codex-queue-once-'));
  queueDb = join(home, 'queue_1.sqlite');
  createReferenceStateDb('state', join(home, 'state_5.sqlite'));
  createReferenceStateDb('queue', queueDb);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const text = (value: string) => [{ type: 'text', text: value, text_elements: [] }];
const start = () => TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0', env: { THREAD_HOST_LOG: 'info' } });
const sql = (statement: string, ...values: unknown[]) => {
  const db = new Database(queueDb);
  try {
    db.prepare(statement).run(...values);
  } finally {
    db.close();
  }
};

/** Until `check` holds (the mirror and its mark follow the answer), within a few seconds. */
async function eventually<T>(read: () => T, check: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 5_000;
  for (;;) {
    const value = read();
    if (check(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A thread with one turn, unloaded, and input queued on it once its row is written and marked. */
async function queuedWhileUnloaded(server: TestServer): Promise<{ threadId: string; queued: Message }> {
  const { thread } = await server.request('thread/start', {});
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('one') });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id, 20_000);
  const closed = server.waitForNotification('thread/closed', (p: Message) => p.threadId === thread.id, 20_000);
  await server.request('thread/unsubscribe', { threadId: thread.id });
  await closed;
  const { queuedSubmission } = await server.request('thread/queue/add', { threadId: thread.id, clientUserMessageId: 'client-x', input: text('queued X') });
  const marks = join(home, 'thread-queue-mirror', `${thread.id}.json`);
  const marked = await eventually(() => (existsSync(marks) ? JSON.parse(readFileSync(marks, 'utf8')) : null), (value) => value !== null);
  expect(marked).toEqual({ threadId: thread.id, mirrored: [queuedSubmission.id] });
  return { threadId: thread.id, queued: queuedSubmission };
}

const userTurns = (server: TestServer, threadId: string) =>
  server.notifications('item/completed').filter((n) => n.params.threadId === threadId && n.params.item.type === 'userMessage').map((n) => n.params.item.clientId);

test('input the reference ran from its queue is not run again when thread-host resumes the thread', async () => {
  const first = await start();
  const { threadId, queued } = await queuedWhileUnloaded(first);
  expect(await first.close()).toBe(0);
  // The reference resumed the thread and started the input: it deleted the row, keyed by the
  // queued submission's id.
  sql('DELETE FROM queued_items WHERE id = ? AND thread_id = ?', queued.id, threadId);

  const server = await start();
  const changed = server.waitForNotification('thread/queue/changed', (p: Message) => p.threadId === threadId, 10_000);
  await server.request('thread/resume', { threadId, excludeTurns: true });
  await changed;
  expect(await server.request('thread/queue/list', { threadId })).toEqual({ data: [], nextCursor: null });
  // A turn would have started right after the resume's drain: nothing did.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(userTurns(server, threadId)).toEqual([]);
  expect(server.notifications('turn/started')).toEqual([]);
  expect(JSON.parse(readFileSync(join(home, 'thread-queues', `${threadId}.json`), 'utf8'))).toEqual({ threadId, queue: [] });
  expect(server.logLines().filter((line) => line.msg === 'queued input the reference ran or deleted leaves the queue unrun').map((line) => line.queuedSubmissionIds)).toEqual([[queued.id]]);
  expect(await server.close()).toBe(0);
}, 60_000);

test('input whose row the database cannot tell about waits, and runs once it can', async () => {
  const server = await start();
  const { threadId, queued } = await queuedWhileUnloaded(server);
  // Another release migrated the queue database: its rows are no longer read.
  sql("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (3, 'later', 1, unhex('AB'), 1)");
  await server.request('thread/resume', { threadId, excludeTurns: true });
  const waiting = await server.waitForLog((line) => line.msg === 'queued input waits: the reference queue cannot tell whether the reference already ran it', 10_000);
  expect({ threadId: waiting.threadId, queuedSubmissionId: waiting.queuedSubmissionId, reason: waiting.reason }).toEqual({
    threadId,
    queuedSubmissionId: queued.id,
    reason: "its migrations are not codex 0.171.0's (versions 1,2,3)",
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  // The thread's first turn only (it had no client id).
  expect(userTurns(server, threadId)).toEqual([null]);
  expect(await server.request('thread/queue/list', { threadId })).toEqual({ data: [queued], nextCursor: null });

  sql('DELETE FROM _sqlx_migrations WHERE version = 3');
  const ran = await server.waitForNotification('item/completed', (p: Message) => p.threadId === threadId && p.item.clientId === 'client-x', 20_000);
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === ran.turnId, 20_000);
  expect(userTurns(server, threadId)).toEqual([null, 'client-x']);
  expect(await server.request('thread/queue/list', { threadId })).toEqual({ data: [], nextCursor: null });
  expect(await server.close()).toBe(0);
}, 60_000);
