import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { RpcReplyError, TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

async function runTurns(server: TestServer, threadId: string, texts: string[]): Promise<void> {
  for (const text of texts) {
    await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
    await server.waitForNotification('turn/completed', (p) => p.threadId === threadId && p.turn.status !== 'inProgress');
  }
}

test('a fresh process resumes a thread cold with every turn, item and timestamp it had', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-resume-'));
  try {
    const first = await TestServer.start({ home, modelUrl: mock.url });
    const { thread } = await first.request('thread/start', {});
    mock.enqueue({ kind: 'failed', message: 'mock failure' });
    await runTurns(first, thread.id, ['first message', 'second message', 'third message']);
    const before = (await first.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    expect(await first.close()).toBe(0);

    const second = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
    const resumed = await second.request('thread/resume', { threadId: thread.id });
    // Paginated history (the default) keeps every item's id and both its times in its
    // item_completed record, so every turn comes back exactly as it was.
    expect(resumed.thread).toEqual({ ...before, updatedAt: expect.any(Number), recencyAt: expect.any(Number) });
    expect(resumed.thread.turns.map((t: { status: string; items: unknown[] }) => [t.status, t.items.length])).toEqual([
      ['failed', 1],
      ['completed', 2],
      ['completed', 2],
    ]);
    // The caller is subscribed and the thread takes turns that see the whole history.
    const requestsBefore = mock.requests.length;
    await runTurns(second, thread.id, ['fourth']);
    const input = (mock.requests[requestsBefore]!.body as { input: Array<{ content: Array<{ text: string }> }> }).input.map((m) => m.content[0]!.text);
    expect(input).toEqual(['first message', 'second message', 'Done', 'third message', 'Done', 'fourth']);
    expect(second.notifications('thread/status/changed')[0]!.params).toEqual({ threadId: thread.id, status: { type: 'idle' } });
    expect(await second.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('warm resume subscribes again without a status change, and excludeTurns leaves turns out', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', {});
  await runTurns(server, thread.id, ['hello']);
  expect(await server.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
  const statusChanges = server.notifications('thread/status/changed').length;
  const warm = await server.request('thread/resume', { threadId: thread.id, excludeTurns: true });
  expect([warm.thread.id, warm.thread.turns, warm.thread.status]).toEqual([thread.id, [], { type: 'idle' }]);
  expect(server.notifications('thread/status/changed').length).toBe(statusChanges);
  expect(await server.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
  expect(await server.close()).toBe(0);
});

test('a thread that never had a turn cannot be resumed, even while loaded', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  // A paginated thread (the default) has no turns to list yet, as the reference says.
  const { thread } = await server.request('thread/start', {});
  const error = await server.request('thread/resume', { threadId: thread.id, excludeTurns: true }).catch((e: unknown) => e);
  expect(error).toEqual(new RpcReplyError(-32601, 'list_turns is not supported yet'));
  await server.close();
  const legacyServer = await TestServer.start({ modelUrl: mock.url, args: ['-c', 'history_mode="legacy"'] });
  const legacy = (await legacyServer.request('thread/start', {})).thread;
  const legacyError = await legacyServer.request('thread/resume', { threadId: legacy.id }).catch((e: unknown) => e);
  expect(legacyError).toEqual(new RpcReplyError(-32600, `no rollout found for thread id ${legacy.id}`));
  return expectEphemeralNotResumable(legacyServer);
});

async function expectEphemeralNotResumable(server: TestServer): Promise<void> {
  const ephemeral = (await server.request('thread/start', { ephemeral: true })).thread;
  expect([ephemeral.ephemeral, ephemeral.path]).toEqual([true, null]);
  await runTurns(server, ephemeral.id, ['hi']);
  const error2 = await server.request('thread/resume', { threadId: ephemeral.id }).catch((e: unknown) => e);
  expect(error2).toEqual(new RpcReplyError(-32600, `no rollout found for thread id ${ephemeral.id}`));
  expect(await server.close()).toBe(0);
}

// Two processes on one home, refused then resumed after a kill: lock-backends.test.ts, on both backends.
