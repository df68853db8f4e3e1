// A cold resume answers before its history is in the main thread's mirror, which is filled a
// slice per event-loop iteration afterwards (src/main/threads/transcript-fill.ts). Requests sent right
// behind the resume, in the same burst, must still see the whole history in order: paged and
// full reads answer it all, a turn started at once comes after every resumed turn, and a thread
// unloaded mid-fill reads whole from disk. The thread's turns carry 100 KB inputs, so its
// packed history is over a megabyte; it crosses as one slice, as src/common/packed-history.ts
// cuts the first slice at FIRST_SLICE_TURNS turns, more than TURNS.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const TURNS = 12;
const inputText = (k: number): string => `turn ${k} `.padEnd(100_000, String.fromCharCode(0x61 + k));

let mock: MockModel;
let home: string;
let threadId: string;
/** The loaded thread's answers in the process that wrote it. */
let before: { read: Message; turnsPage: Message; itemsPage: Message; resume: Message };

const turnsPage = { limit: 5, sortDirection: 'desc', itemsView: 'full' };
const itemsPage = { limit: 7 };

beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
  home = mkdtempSync(join(tmpdir(), 'thread-host-fill-'));
  const writer = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
  const { thread } = await writer.request('thread/start', {});
  threadId = thread.id;
  for (let k = 0; k < TURNS; k += 1) {
    const { turn } = await writer.request('turn/start', { threadId, input: [{ type: 'text', text: inputText(k) }] });
    await writer.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  }
  before = {
    read: await writer.request('thread/read', { threadId, includeTurns: true }),
    turnsPage: await writer.request('thread/turns/list', { threadId, ...turnsPage }),
    itemsPage: await writer.request('thread/items/list', { threadId, ...itemsPage }),
    resume: await writer.request('thread/resume', { threadId }),
  };
  expect(await writer.close()).toBe(0);
});

afterAll(async () => {
  await mock.close();
  rmSync(home, { recursive: true, force: true });
});

// What a later process shows differently: when the thread was last updated, and the caller's subscription.
const sameThread = (thread: Message): Message => ({ ...thread, updatedAt: expect.any(Number), recencyAt: expect.any(Number) });

test.each([false, true])('reads sent in the same burst as a cold resume (excludeTurns: %s) answer the whole history', async (excludeTurns) => {
  const server = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
  try {
    const [resume, read, turns, items, warm] = await Promise.all([
      server.request('thread/resume', { threadId, excludeTurns }),
      server.request('thread/read', { threadId, includeTurns: true }),
      server.request('thread/turns/list', { threadId, ...turnsPage }),
      server.request('thread/items/list', { threadId, ...itemsPage }),
      // A warm resume by then.
      server.request('thread/resume', { threadId }),
    ]);
    expect(resume).toEqual({ ...before.resume, thread: sameThread(excludeTurns ? { ...before.resume.thread, turns: [] } : before.resume.thread) });
    expect(warm).toEqual({ ...before.resume, thread: sameThread(before.resume.thread) });
    expect(read).toEqual({ thread: sameThread(before.read.thread), readState: before.read.readState });
    expect(read.thread.turns).toHaveLength(TURNS);
    expect(turns).toEqual(before.turnsPage);
    expect(items).toEqual(before.itemsPage);
  } finally {
    expect(await server.close()).toBe(0);
  }
});

test('a turn started in the same burst as a cold resume comes after every resumed turn', async () => {
  // A copy of the home: this test adds a turn, the others read the thread as it was written.
  const copy = mkdtempSync(join(tmpdir(), 'thread-host-fill-'));
  cpSync(home, copy, { recursive: true });
  const server = await TestServer.start({ home: copy, modelUrl: mock.url, keepConfig: true });
  try {
    const [resume, started] = await Promise.all([
      server.request('thread/resume', { threadId }),
      server.request('turn/start', { threadId, input: [{ type: 'text', text: 'right behind the resume' }] }),
    ]);
    await server.waitForNotification('turn/completed', (p) => p.turn.id === started.turn.id);
    expect(resume.thread.turns).toEqual(before.read.thread.turns);
    const after = await server.request('thread/read', { threadId, includeTurns: true });
    expect(after.thread.turns.slice(0, TURNS)).toEqual(before.read.thread.turns);
    expect(after.thread.turns.map((turn: Message) => [turn.id, turn.status])).toEqual([
      ...before.read.thread.turns.map((turn: Message) => [turn.id, turn.status]),
      [started.turn.id, 'completed'],
    ]);
    // Paged from memory, the new turn's cursors (noted as its events came) are those its
    // rollout records: the same pages read from disk once the thread is unloaded.
    const pages = () =>
      Promise.all([
        server.request('thread/turns/list', { threadId, limit: 3, sortDirection: 'desc', itemsView: 'full' }),
        server.request('thread/items/list', { threadId, limit: 5 }),
      ]);
    const fromMemory = await pages();
    const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId);
    await server.request('thread/unsubscribe', { threadId });
    await closed;
    expect(await pages()).toEqual(fromMemory);
    expect(fromMemory[0].data.map((turn: Message) => turn.id)).toEqual([started.turn.id, ...before.read.thread.turns.slice(-2).map((turn: Message) => turn.id).reverse()]);
    // The model saw the whole history before the new input.
    const input = (mock.requests.at(-1)!.body as { input: Array<{ role: string; content: Array<{ text: string }> }> }).input;
    expect(input.filter((message) => message.role === 'user').map((message) => message.content[0]!.text.slice(0, 8))).toEqual([
      ...Array.from({ length: TURNS }, (_, k) => inputText(k).slice(0, 8)),
      'right be',
    ]);
  } finally {
    expect(await server.close()).toBe(0);
    rmSync(copy, { recursive: true, force: true });
  }
});

test('a thread unloaded while its history is still being mirrored reads whole from disk', async () => {
  const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
  try {
    const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId);
    const [, unsubscribed] = await Promise.all([
      server.request('thread/resume', { threadId, excludeTurns: true }),
      server.request('thread/unsubscribe', { threadId }),
    ]);
    expect(unsubscribed).toEqual({ status: 'unsubscribed' });
    await closed;
    expect(await server.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
    // Read from the rollout now (a stored thread's view differs in its loaded-only fields).
    const { thread } = await server.request('thread/read', { threadId, includeTurns: true });
    expect({ status: thread.status, turns: thread.turns }).toEqual({ status: { type: 'notLoaded' }, turns: before.read.thread.turns });
    expect(server.logLines().filter((line) => line.level === 'error')).toEqual([]);
  } finally {
    expect(await server.close()).toBe(0);
  }
});
