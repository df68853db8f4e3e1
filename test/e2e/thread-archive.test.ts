// thread/archive and thread/unarchive as codex-cli 0.171.0 answers them
// (test/fixtures/reference-answers/thread-archive.jsonl, replayed step by step on thread-host
// with the same normalization), the archive's layout on disk, and its durability: an archived
// thread stays archived through a restart, and one the reference archived is seen archived.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { fixedThreadId } from '../helpers/fixed-ids.js';
import { writeMinimalRollout } from '../helpers/minimal-rollout.js';
import { readRecording, replay } from '../helpers/reference-replay.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const steps = readRecording('thread-archive.jsonl');

// The recording's projections (README there).
const threadOf = (r: Message) => ({ id: r.thread.id, path: r.thread.path, status: r.thread.status, preview: r.thread.preview, forkedFromId: r.thread.forkedFromId, name: r.thread.name, turns: r.thread.turns });
const listed = (r: Message) => ({ data: r.data.map((t: Message) => ({ id: t.id, path: t.path })), nextCursor: r.nextCursor });

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

async function turn(server: TestServer, threadId: string, text: string): Promise<void> {
  const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id);
}

test('archive and unarchive answer as the reference does, step by step', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-archive-'));
  try {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    const other = await TestServer.start({ home, keepConfig: true });
    const { thread } = await server.request('thread/start', {});
    await turn(server, thread.id, 'hello');
    const { thread: held } = await other.request('thread/start', {});
    await turn(other, held.id, 'held by another process');
    const ids = { '<thread>': thread.id, '<other>': held.id };
    await replay(steps, { server, home, ids, project: (method, result) => (method === 'thread/list' ? listed(result) : threadOf(result)) });
    expect(await other.close()).toBe(0);
    expect(await server.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('an archived thread stays archived through a restart, and unarchives after one', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-archive-'));
  try {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
    const { thread } = await server.request('thread/start', {});
    await turn(server, thread.id, 'hello');
    const livePath = thread.path as string;
    expect(await server.request('thread/archive', { threadId: thread.id })).toEqual({});
    expect([existsSync(livePath), readdirSync(join(home, 'archived_sessions'))]).toEqual([false, [basename(livePath)]]);
    expect(await server.close()).toBe(0);

    const restarted = await TestServer.start({ home, keepConfig: true });
    expect((await restarted.request('thread/list', {})).data).toEqual([]);
    expect((await restarted.request('thread/list', { archived: true })).data.map((t: Message) => t.id)).toEqual([thread.id]);
    const refused = await restarted.requestRaw('thread/resume', { threadId: thread.id });
    expect(refused.error).toEqual({ code: -32600, message: `session ${thread.id} is archived. Run \`codex unarchive ${thread.id}\` to unarchive it first.` });
    const { thread: back } = await restarted.request('thread/unarchive', { threadId: thread.id });
    expect([back.path, existsSync(livePath)]).toEqual([livePath, true]);
    // Unarchived, it resumes with its turn, and can be archived again while loaded.
    const { thread: resumed } = await restarted.request('thread/resume', { threadId: thread.id });
    expect(resumed.turns.map((t: Message) => t.items.map((item: Message) => item.type))).toEqual([['userMessage', 'agentMessage']]);
    expect(await restarted.request('thread/archive', { threadId: thread.id })).toEqual({});
    expect((await restarted.request('thread/loaded/list', {})).data).toEqual([]);
    expect(restarted.notifications('thread/closed')).toEqual([]);
    expect(await restarted.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a thread archived in the reference\'s layout is listed and unarchived', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-archive-'));
  try {
    const threadId = fixedThreadId(3);
    const live = writeMinimalRollout(home, { threadId, created: '2026-12-02T10:00:01.250Z', message: 'hello' });
    mkdirSync(join(home, 'archived_sessions'));
    renameSync(live, join(home, 'archived_sessions', basename(live)));
    const server = await TestServer.start({ home });
    expect((await server.request('thread/list', { archived: true })).data.map((t: Message) => [t.id, t.path])).toEqual([[threadId, join(home, 'archived_sessions', basename(live))]]);
    expect((await server.request('thread/read', { threadId })).thread.preview).toBe('hello');
    expect((await server.request('thread/unarchive', { threadId })).thread.path).toBe(live);
    expect((await server.request('thread/list', {})).data.map((t: Message) => t.id)).toEqual([threadId]);
    expect(await server.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
