import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/mock-model/mock-model-server.js';
import { RpcReplyError, TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

test('a worker blocked synchronously in unload cleanup does not stop thread/closed or other requests', async () => {
  const server = await TestServer.start({
    modelUrl: mock.url,
    rootConfig: 'thread_unload_delay_secs = 0',
    env: { THREAD_HOST_FAULT_BLOCK_CLOSE_MS: '3000', THREAD_HOST_ACTOR_CLOSE_TIMEOUT_MS: '300', THREAD_HOST_WORKERS: '2' },
  });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  await server.waitForNotification('turn/completed');
  expect(await server.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
  // While the worker is blocked (and before the close deadline) the thread is closing.
  const closing = await server.request('thread/resume', { threadId: thread.id }).catch((e: unknown) => e);
  expect(closing).toEqual(new RpcReplyError(-32600, `thread ${thread.id} is closing; retry thread/resume after the thread is closed`));
  expect((await server.request('thread/loaded/list', {}, 200)).data).toEqual([thread.id]);
  expect(await server.waitForNotification('thread/closed', () => true, 2_000)).toEqual({ threadId: thread.id });
  expect(await server.request('thread/loaded/list', {}, 200)).toEqual({ data: [], nextCursor: null });
  // The other worker takes new threads and turns while the first is still blocked.
  const resumed = await server.request('thread/resume', { threadId: thread.id }, 2_000);
  expect(resumed.thread.turns.length).toBe(1);
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'again' }] });
  expect((await server.waitForNotification('turn/completed', () => true, 2_000)).turn.status).toBe('completed');
  expect(await server.close()).toBe(0);
});

test('a worker that dies ends its threads with a clear error and the pool serves the rest', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { THREAD_HOST_FAULT_EXIT_ON_TEXT: 'crash now', THREAD_HOST_WORKERS: '2' } });
  const a = (await server.request('thread/start', {})).thread.id;
  const b = (await server.request('thread/start', {})).thread.id;
  const { turn } = await server.request('turn/start', { threadId: a, input: [{ type: 'text', text: 'crash now' }] });
  const failed = await server.waitForNotification('turn/completed', (p) => p.threadId === a);
  expect([failed.turn.id, failed.turn.status, failed.turn.error.message]).toEqual([turn.id, 'failed', 'the worker hosting this thread exited; resume the thread to continue']);
  expect(await server.waitForNotification('thread/closed', (p) => p.threadId === a)).toEqual({ threadId: a });
  await server.request('turn/start', { threadId: b, input: [{ type: 'text', text: 'fine' }] });
  expect((await server.waitForNotification('turn/completed', (p) => p.threadId === b)).turn.status).toBe('completed');
  // The crashed thread is resumable with its interrupted turn, on a replacement worker.
  const resumed = await server.request('thread/resume', { threadId: a });
  expect(resumed.thread.turns.map((t: { status: string }) => t.status)).toEqual(['interrupted']);
  const c = (await server.request('thread/start', {})).thread.id;
  await server.request('turn/start', { threadId: c, input: [{ type: 'text', text: 'new' }] });
  expect((await server.waitForNotification('turn/completed', (p) => p.threadId === c)).turn.status).toBe('completed');
  expect(await server.close()).toBe(0);
});
