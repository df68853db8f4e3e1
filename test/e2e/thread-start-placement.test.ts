// thread/start is answered from memory once the thread's writer lock is held; its actor is
// placed in the pool behind the answer (a process's first start would otherwise wait for the
// workers to come up). Commands for the actor wait for the placement; a placement that fails
// unloads the thread, which clients saw started, and announces it closed.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const threadLockFiles = (home: string) => readdirSync(join(home, 'thread-writer-locks')).filter((name) => name !== '.coordination.lock');

test("a process's first thread/start is answered before its actor is placed, and a turn sent at once runs once the actor is", async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { THREAD_HOST_LOG: 'info' } });
  const { thread } = await server.request('thread/start', {});
  // Sent the moment the start is answered, while the pool's workers are still coming up.
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  const completed = await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
  const read = await server.request('thread/read', { threadId: thread.id, includeTurns: true });
  // The log is one ordered stream: the thread was published (answered) before its actor was placed.
  await server.waitForLog((l) => l.msg === 'actor placed' && l.threadId === thread.id);
  const order = server
    .logLines()
    .filter((l) => l.threadId === thread.id && (l.msg === 'thread loaded' || l.msg === 'actor placed'))
    .map((l) => l.msg);
  expect({ order, status: completed.turn.status, turns: read.thread.turns.map((t: { id: string }) => t.id) }).toEqual({
    order: ['thread loaded', 'actor placed'],
    status: 'completed',
    turns: [turn.id],
  });
  expect(await server.close()).toBe(0);
});

test('a start whose actor cannot be placed is announced closed with its lock released, and a turn sent to it meanwhile ends failed', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { THREAD_HOST_FAULT_FAIL_SPAWN: '1' } });
  const { thread } = await server.request('thread/start', {});
  // Answered from memory, like the start; its command waits for the placement, which fails.
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  const closed = await server.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
  const completed = await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
  expect({
    turn: [turn.status, completed.turn.id, completed.turn.status, completed.turn.error?.message],
    closed,
    statuses: server.notifications('thread/status/changed').map((m) => m.params.status.type),
    loaded: await server.request('thread/loaded/list', {}),
    lockFiles: threadLockFiles(server.home),
  }).toEqual({
    turn: ['inProgress', turn.id, 'failed', "could not start the turn: the thread's actor could not be placed"],
    closed: { threadId: thread.id },
    statuses: ['systemError', 'notLoaded'],
    loaded: { data: [], nextCursor: null },
    lockFiles: [],
  });
  expect(await server.close()).toBe(0);
});

test('input ending right after a thread/start still gets its answer, and the shutdown waits for the actor to be placed, then closes it', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { THREAD_HOST_LOG: 'info' } });
  // The first start of the process: its actor is placed while the host is already draining.
  const started = server.requestRaw('thread/start', {});
  const code = await server.close();
  const threadId = (await started).result?.thread?.id as string;
  const events = server
    .logLines()
    .filter((l) => l.threadId === threadId && ['thread loaded', 'actor placed', 'thread unloaded'].includes(l.msg))
    .map((l) => (l.msg === 'thread unloaded' ? `${l.msg} ${l.reason} ${l.outcome}` : l.msg));
  expect({ code, events }).toEqual({ code: 0, events: ['thread loaded', 'actor placed', 'thread unloaded shutdown complete'] });
});
