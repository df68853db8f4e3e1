// thread/delete as codex-cli 0.171.0 answers it and what it removes
// (test/fixtures/reference-answers/thread-delete.jsonl, replayed on thread-host with the same
// setup): a loaded, a stored, an archived and a never-written thread, one another process
// holds, ids that are no thread; the rollouts and session_index.jsonl lines removed. Then a
// deletion lasts through a restart, and a thread the reference wrote is deleted here.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { fixedThreadId } from '../helpers/fixed-ids.js';
import { writeMinimalRollout } from '../helpers/minimal-rollout.js';
import { deleteRecordingSetup, startedThread } from '../helpers/recorded-thread-changes.js';
import { readRecording, replay } from '../helpers/reference-replay.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

test('delete answers and removes what the reference does, step by step', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-delete-'));
  try {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    const other = await TestServer.start({ home, keepConfig: true });
    const ids = await deleteRecordingSetup(server, other);
    await replay(readRecording('thread-delete.jsonl'), { server, home, ids });
    expect(await other.close()).toBe(0);
    expect(await server.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a deleted thread stays deleted through a restart; one the reference wrote is deleted with its name', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-delete-'));
  try {
    const written = fixedThreadId(5);
    const writtenPath = writeMinimalRollout(home, { threadId: written, created: '2026-12-02T10:00:01.250Z', message: 'hello' });
    copyFileSync(new URL('../fixtures/reference-answers/session_index.jsonl', import.meta.url), join(home, 'session_index.jsonl'));
    writeFileSync(join(home, 'session_index.jsonl'), readFileSync(join(home, 'session_index.jsonl'), 'utf8').replaceAll('<thread>', written));
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    const mine = await startedThread(server, 'mine');
    expect(await server.request('thread/delete', { threadId: mine })).toEqual({});
    expect(await server.request('thread/delete', { threadId: written })).toEqual({});
    expect([existsSync(writtenPath), readFileSync(join(home, 'session_index.jsonl'), 'utf8')]).toEqual([false, '']);
    expect(await server.close()).toBe(0);

    const restarted = await TestServer.start({ home, keepConfig: true });
    expect((await restarted.request('thread/list', {})).data).toEqual([]);
    for (const threadId of [mine, written]) {
      expect((await restarted.requestRaw('thread/resume', { threadId })).error).toEqual({ code: -32600, message: `no rollout found for thread id ${threadId}` });
    }
    expect(await restarted.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a deleted thread takes its queued input with it', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-delete-'));
  try {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    const threadId = await startedThread(server, 'queued later');
    await server.request('thread/unsubscribe', { threadId });
    await server.waitForNotification('thread/closed', (p: Message) => p.threadId === threadId);
    // A stored thread's queue waits on disk until the thread is loaded again.
    await server.request('thread/queue/add', { threadId, input: [{ type: 'text', text: 'later' }], clientUserMessageId: 'client-1' });
    const queueFile = join(home, 'thread-queues', `${threadId}.json`);
    expect(existsSync(queueFile)).toBe(true);
    expect(await server.request('thread/delete', { threadId })).toEqual({});
    expect(existsSync(queueFile)).toBe(false);
    expect(await server.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
