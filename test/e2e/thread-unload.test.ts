import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { holdCoordination } from '../../bench/lib/coordination-holder.js';
import { LOCK_BACKENDS, lockDir, threadLockPath, withBackend } from '../helpers/lock-backends.js';
import { RpcReplyError, TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

async function threadWithOneTurn(server: TestServer): Promise<string> {
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello', text_elements: [] }] });
  await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
  return thread.id;
}

describe.each(LOCK_BACKENDS)('%s backend', (backend) => {
  test('idle unload finishes while another process holds the writer coordination lock', async () => {
    const server = await TestServer.start({
      modelUrl: mock.url,
      rootConfig: withBackend(backend, 'thread_unload_delay_secs = 0\napprovals_reviewer = "user"'),
      env: { TOKIO_WORKER_THREADS: '2' },
    });
    const threadId = await threadWithOneTurn(server);
    const holder = await holdCoordination(server.home, backend);
    try {
      expect(await server.request('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
      expect(await server.waitForNotification('thread/closed', () => true, 60_000)).toEqual({ threadId });
      expect(await server.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
    } finally {
      await holder.release();
    }
    const resumed = await server.request('thread/resume', { threadId });
    expect([resumed.thread.id, resumed.thread.turns.length]).toEqual([threadId, 1]);
    expect(await server.close()).toBe(0);
  });

  test('unload broadcasts notLoaded then thread/closed, and leaves the lock file behind only while coordination is held', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: withBackend(backend, 'thread_unload_delay_secs = 0') });
    const threadId = await threadWithOneTurn(server);
    const lockFile = threadLockPath(server.home, backend, threadId);
    expect(existsSync(lockFile)).toBe(true);
    await server.request('thread/unsubscribe', { threadId });
    await server.waitForNotification('thread/closed');
    const tail = server.notifications().slice(-2).map((m) => [m.method, m.params]);
    expect(tail).toEqual([
      ['thread/status/changed', { threadId, status: { type: 'notLoaded' } }],
      ['thread/closed', { threadId }],
    ]);
    // flock keeps its coordination file for ever; lockfile's janitor removes the directory
    // under coordination just after the unload, and its coordination exists only while held.
    const expected = backend === 'flock' ? ['.coordination.lock'] : [];
    await vi.waitFor(() => expect(readdirSync(lockDir(server.home, backend)).sort()).toEqual(expected));
    expect(await server.close()).toBe(0);
  });

  test('a subscribed idle thread never unloads, and unsubscribing twice says notSubscribed', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: withBackend(backend, 'thread_unload_delay_secs = 0') });
    const threadId = await threadWithOneTurn(server);
    expect(await server.request('thread/loaded/list', {})).toEqual({ data: [threadId], nextCursor: null });
    expect(await server.request('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
    await server.waitForNotification('thread/closed');
    expect(await server.request('thread/unsubscribe', { threadId })).toEqual({ status: 'notLoaded' });
    expect(await server.close()).toBe(0);
  });

  test('resume while coordination is held waits, keeps thread/loaded/list answering, and succeeds after release', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: withBackend(backend, 'thread_unload_delay_secs = 0') });
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push(await threadWithOneTurn(server));
    for (const threadId of ids) await server.request('thread/unsubscribe', { threadId });
    for (const threadId of ids) await server.waitForNotification('thread/closed', (p) => p.threadId === threadId);
    const holder = await holdCoordination(server.home, backend);
    const resumes = ids.map((threadId) => server.request('thread/resume', { threadId }, 30_000));
    let answered = 0;
    try {
      for (let i = 0; i < 20; i += 1) {
        expect(await server.request('thread/loaded/list', {}, 1_000)).toEqual({ data: [], nextCursor: null });
        answered += 1;
      }
    } finally {
      await holder.release();
    }
    const results = await Promise.all(resumes);
    expect(answered).toBe(20);
    expect(results.map((r) => [r.thread.id, r.thread.turns.length])).toEqual(ids.map((id) => [id, 1]));
    expect((await server.request('thread/loaded/list', {})).data).toEqual([...ids].sort());
    expect(await server.close()).toBe(0);
  });

  test('an acquisition that outlasts writer_lock_timeout_ms fails with the reference text and leaves nothing loaded', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: withBackend(backend, 'writer_lock_timeout_ms = 200') });
    await server.request('thread/start', {});
    const holder = await holdCoordination(server.home, backend);
    try {
      const error = await server.request('thread/start', {}).catch((e: unknown) => e);
      expect(error).toEqual(
        new RpcReplyError(
          -32603,
          'error creating thread: Fatal error: Failed to initialize session: thread-store internal error: timed out waiting for the thread writer coordination lock; another Codex process may be suspended on this or another host',
        ),
      );
      expect((await server.request('thread/loaded/list', {})).data.length).toBe(1);
    } finally {
      await holder.release();
    }
    expect(await server.close()).toBe(0);
  });

  test('requests about a thread queue behind its pending resume while other threads are answered at once', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: withBackend(backend, 'thread_unload_delay_secs = 0') });
    const waiting = await threadWithOneTurn(server);
    const other = await threadWithOneTurn(server);
    await server.request('thread/unsubscribe', { threadId: waiting });
    await server.waitForNotification('thread/closed', (p) => p.threadId === waiting);
    const holder = await holdCoordination(server.home, backend);
    const order: string[] = [];
    let resume: Promise<unknown>;
    let queued: Promise<unknown>;
    try {
      resume = server.request('thread/resume', { threadId: waiting }, 30_000).then(() => order.push('resume'));
      queued = server.request('thread/unsubscribe', { threadId: waiting }, 30_000).then((r) => order.push(`unsubscribe ${r.status}`));
      const read = await server.request('thread/read', { threadId: other }, 1_000);
      expect([read.thread.id, read.thread.status]).toEqual([other, { type: 'idle' }]);
      expect(await server.request('thread/unsubscribe', { threadId: other }, 1_000)).toEqual({ status: 'unsubscribed' });
      order.push('other answered');
    } finally {
      await holder.release();
    }
    await Promise.all([resume, queued]);
    expect(order).toEqual(['other answered', 'resume', 'unsubscribe unsubscribed']);
    expect(await server.close()).toBe(0);
  });
});
