// thread-host keeping the reference's paginated history database current, end to end: the real
// CLI in a home holding a thread_history_1.sqlite as codex 0.171.0 creates it (the rows the
// reference writes for the same rollout are tested in test/unit/actors/history/files/codex-history-db).
// Each turn's rows are there before the writer lock is released (an unload's thread/closed);
// a foreign write lock held for seconds delays no turn and is caught up by the next turn; the
// key and a lockfile home turn it off.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { HistoryDatabase } from '../../src/actors/history/files/codex-history-db/history-database.js';
import { projectTail } from '../../src/actors/history/files/codex-history-db/rollout-tail.js';
import { parseRevertedRolloutFileName } from '../../src/common/rollout/rollout-path.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { createReferenceHistoryDb, threadRows } from '../helpers/reference-history-db.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

let home: string;
let dbPath: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'history-projection-'));
  dbPath = join(home, 'thread_history_1.sqlite');
  createReferenceHistoryDb(dbPath);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

async function turn(server: TestServer, threadId: string, text: string): Promise<number> {
  const started = performance.now();
  const { turn: begun } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  const done = await server.waitForNotification('turn/completed', (p) => p.turn.id === begun.id, 20_000);
  expect(done.turn.status).toEqual('completed');
  return performance.now() - started;
}

/** Unloads the thread, which releases its writer lock: its rows are projected by then. */
async function unload(server: TestServer, threadId: string): Promise<void> {
  const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId, 20_000);
  await server.request('thread/unsubscribe', { threadId });
  await closed;
}

const resume = (server: TestServer, threadId: string) => server.request('thread/resume', { threadId, excludeTurns: true });

/** The rows one catch-up of the whole rollout writes into a fresh database. */
function rowsOfWholeRollout(threadId: string, rolloutPath: string) {
  const dir = mkdtempSync(join(tmpdir(), 'history-projection-whole-'));
  try {
    const path = join(dir, 'thread_history_1.sqlite');
    createReferenceHistoryDb(path);
    const database = new HistoryDatabase(path, 1000);
    const tail = projectTail(readFileSync(rolloutPath), { offset: 0, ordinal: 0 });
    if (tail.kind !== 'tail') throw new Error(tail.reason);
    expect(database.apply(threadId, { offset: 0, ordinal: 0 }, tail.lines, tail.next)).toEqual({ kind: 'applied' });
    database.close();
    return threadRows(path, threadId);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const statuses = (rows: { turns: unknown[] }) => rows.turns.map((t) => (t as { status: string }).status);

describe('a paginated thread thread-host writes', () => {
  test('has each turn in the database, exactly as one catch-up of its rollout would write it, when the thread unloads', async () => {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    try {
      const { thread } = await server.request('thread/start', {});
      for (const [n, text] of ['one', 'two'].entries()) {
        if (n > 0) await resume(server, thread.id);
        await turn(server, thread.id, text);
        await unload(server, thread.id);
        const rows = threadRows(dbPath, thread.id);
        expect(statuses(rows)).toEqual(Array(n + 1).fill('completed'));
        expect(rows).toEqual(rowsOfWholeRollout(thread.id, thread.path));
      }
    } finally {
      await server.close();
    }
  }, 60_000);

  test('reverted, has the file the revert started projected under that file\'s id, and the first file as it was', async () => {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    try {
      const { thread } = await server.request('thread/start', {});
      await turn(server, thread.id, 'kept');
      await turn(server, thread.id, 'dropped');
      const { data: newest } = await server.request('thread/turns/list', { threadId: thread.id, sortDirection: 'desc', limit: 1 });
      const { thread: reverted } = await server.request('thread/revert', { threadId: thread.id, beforeTurnId: newest[0].id });
      await turn(server, thread.id, 'after the revert');
      await unload(server, thread.id);
      const fileId = parseRevertedRolloutFileName(basename(reverted.path))!.fileId;
      expect(statuses(threadRows(dbPath, fileId))).toEqual(['completed']);
      expect(threadRows(dbPath, fileId)).toEqual(rowsOfWholeRollout(fileId, reverted.path));
      expect(threadRows(dbPath, thread.id)).toEqual(rowsOfWholeRollout(thread.id, thread.path));
    } finally {
      await server.close();
    }
  }, 60_000);

  test('goes on with its turns while another process holds the write lock for seconds, and catches up after', async () => {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    try {
      const { thread } = await server.request('thread/start', {});
      await turn(server, thread.id, 'one');
      await unload(server, thread.id);
      const projectedOne = threadRows(dbPath, thread.id);
      expect(statuses(projectedOne)).toEqual(['completed']);
      await resume(server, thread.id);
      const holder = new Database(dbPath);
      holder.exec('BEGIN IMMEDIATE');
      const heldSince = performance.now();
      let took: number;
      try {
        took = await turn(server, thread.id, 'two');
        // The unload waits for the projection until its deadline, then releases the lock.
        await unload(server, thread.id);
        // Held for seconds: the turn ended long before it was let go.
        while (performance.now() - heldSince < 3_000) await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      // A turn on the mock, on a loaded machine: its end does not wait for the lock.
      expect(took).toBeLessThan(1_500);
      expect(threadRows(dbPath, thread.id)).toEqual(projectedOne);
      await resume(server, thread.id);
      await turn(server, thread.id, 'three');
      await unload(server, thread.id);
      const rows = threadRows(dbPath, thread.id);
      expect(statuses(rows)).toEqual(['completed', 'completed', 'completed']);
      expect(rows).toEqual(rowsOfWholeRollout(thread.id, thread.path));
    } finally {
      await server.close();
    }
  }, 60_000);

  test.each([
    ['codex_history_projection = false', 'codex_history_projection = false'],
    ['a lockfile home', 'writer_lock_backend = "lockfile"'],
  ])('leaves the database alone with %s', async (_case, rootConfig) => {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig });
    try {
      const { thread } = await server.request('thread/start', {});
      await turn(server, thread.id, 'one');
      expect(threadRows(dbPath, thread.id)).toEqual({ turns: [], items: [], checkpoint: null });
    } finally {
      await server.close();
    }
  }, 60_000);
});
