// `thread-host fleet import` brings what clients set of a thread besides its rollout: its name,
// read state, metadata and queued input. A host on the store then answers thread/read,
// thread/list and thread/queue/list as a host on the original home does; importing again
// changes nothing; a home whose state differs from the store's is reported and the store's kept.
// A fork or reverted thread of the home reads the same too.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { runFleet, type FleetRun } from '../helpers/fleet-cli.js';
import { startedThread } from '../helpers/recorded-thread-changes.js';
import { testDatabase } from '../helpers/test-database.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { postgresLines } from '../helpers/thread-stores.js';

const scratch = mkdtempSync(join(tmpdir(), 'thread-host-fleet-state-'));
const home = mkdtempSync(join(scratch, 'home-'));
let mock: MockModel;
let db: PostgresConnection;

beforeAll(async () => {
  mock = await startMockModel();
  db = await testDatabase();
});
afterAll(async () => {
  await mock.close();
  rmSync(scratch, { recursive: true, force: true });
});

const fleet = (...args: string[]): FleetRun => runFleet(db, join(scratch, 'host-home'), ...args);
const filesHost = (): Promise<TestServer> => TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
const storeHost = (): Promise<TestServer> => TestServer.start({ modelUrl: mock.url, rootConfig: [...postgresLines(db), 'thread_unload_delay_secs = 0'].join('\n') });
const text = (value: string) => [{ type: 'text', text: value, text_elements: [] }];

/** What a client sees of the thread: its read (with turns), the listing, and its queue. */
async function answers(server: TestServer, threadId: string): Promise<Message> {
  return {
    read: await server.request('thread/read', { threadId, includeTurns: true }),
    list: await server.request('thread/list', {}),
    queue: await server.request('thread/queue/list', { threadId }),
  };
}

// The rollout's path is the one thing a store host shows otherwise (it has no file).
const withoutPath = (seen: Message): Message => JSON.parse(JSON.stringify(seen, (key, value: unknown) => (key === 'path' ? '<path>' : value)));

/** The lines of the thread's rollout in the home. */
function rolloutLines(threadId: string): number {
  const sessions = join(home, 'sessions');
  const [file] = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith(`${threadId}.jsonl`));
  return readFileSync(join(sessions, file!), 'utf8').split('\n').length - 1;
}

describe('fleet import of a thread\'s state', () => {
  let threadId: string;
  let onFiles: Message;
  let onStore: Message;

  test('a named, read-marked, metadata-patched thread with two queued inputs reads, lists and queues the same on the store', async () => {
    const files = await filesHost();
    try {
      threadId = await startedThread(files, 'hello');
      await files.request('thread/name/set', { threadId, name: 'Moved ✓' });
      await files.request('thread/metadata/update', { threadId, gitInfo: { branch: 'main', sha: 'abc' }, daybreakEnabled: true });
      const { readState } = await files.request('thread/read', { threadId });
      await files.request('thread/readState/update', { threadId, operation: { type: 'read' }, expectedRevision: readState.revision });
      await files.request('thread/unsubscribe', { threadId });
      await files.waitForNotification('thread/closed', (p: Message) => p.threadId === threadId);
      // Not loaded: the inputs wait in the queue.
      await files.request('thread/queue/add', { threadId, clientUserMessageId: 'q-1', input: text('first queued') });
      await files.request('thread/queue/add', { threadId, clientUserMessageId: 'q-2', input: text('second queued') });
      onFiles = await answers(files, threadId);
    } finally {
      expect(await files.close()).toBe(0);
    }
    expect(onFiles.read.thread.name).toBe('Moved ✓');
    expect(onFiles.read.readState.firstUnread).toBeNull();
    expect(onFiles.queue.data).toHaveLength(2);

    const lines = rolloutLines(threadId);
    expect(fleet('import', home)).toEqual({
      status: 0,
      stdout:
        `imported ${threadId}: ${lines} lines\n` +
        `imported the read state of ${threadId}\n` +
        `imported the metadata of ${threadId}\n` +
        `imported the queue of ${threadId}: 2 inputs\n` +
        `1 threads imported, 0 grown, 0 unchanged, 0 skipped (${lines} lines stored)\n` +
        '1 read states imported, 0 unchanged, 0 skipped\n' +
        '1 metadata imported, 0 unchanged, 0 skipped\n' +
        '1 queues imported, 0 unchanged, 0 skipped (2 inputs queued)\n',
      stderr: '',
    });

    const store = await storeHost();
    try {
      onStore = await answers(store, threadId);
    } finally {
      expect(await store.close()).toBe(0);
    }
    expect(withoutPath(onStore)).toEqual(withoutPath(onFiles));
  });

  test('importing again changes nothing', async () => {
    expect(fleet('import', home)).toEqual({
      status: 0,
      stdout:
        '0 threads imported, 0 grown, 1 unchanged, 0 skipped (0 lines stored)\n' +
        '0 read states imported, 1 unchanged, 0 skipped\n' +
        '0 metadata imported, 1 unchanged, 0 skipped\n' +
        '0 queues imported, 1 unchanged, 0 skipped (0 inputs queued)\n',
      stderr: '',
    });
    const store = await storeHost();
    try {
      expect(await answers(store, threadId)).toEqual(onStore);
    } finally {
      expect(await store.close()).toBe(0);
    }
  });

  test('a home whose state differs from the store\'s is reported, and the store\'s is kept', async () => {
    const files = await filesHost();
    try {
      await files.request('thread/metadata/update', { threadId, gitInfo: { branch: 'later' } });
      await files.request('thread/queue/add', { threadId, clientUserMessageId: 'q-3', input: text('third queued') });
      const { readState } = await files.request('thread/read', { threadId });
      await files.request('thread/readState/update', { threadId, operation: { type: 'unread' }, expectedRevision: readState.revision });
    } finally {
      expect(await files.close()).toBe(0);
    }
    expect(fleet('import', home)).toEqual({
      status: 1,
      stdout:
        '0 threads imported, 0 grown, 1 unchanged, 0 skipped (0 lines stored)\n' +
        '0 read states imported, 0 unchanged, 1 skipped\n' +
        '0 metadata imported, 0 unchanged, 1 skipped\n' +
        '0 queues imported, 0 unchanged, 1 skipped (0 inputs queued)\n',
      stderr:
        `skipped the read state of ${threadId}: the store holds another for this thread; left as it is\n` +
        `skipped the metadata of ${threadId}: the store holds another for this thread; left as it is\n` +
        `skipped the queue of ${threadId}: the store holds another for this thread; left as it is\n`,
    });
    const store = await storeHost();
    try {
      expect(await answers(store, threadId)).toEqual(onStore);
    } finally {
      expect(await store.close()).toBe(0);
    }
  });
});

// A fork (paginated: its file names its source's lines) and a reverted thread (its newest file
// names what it kept of the first) are stored with the history they keep, as on the store.
test('a fork and a reverted thread of the home read the same on the store', async () => {
  const forkHome = mkdtempSync(join(scratch, 'forks-'));
  const files = await TestServer.start({ home: forkHome, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
  const reads: Record<string, Message> = {};
  let threads: string[];
  try {
    const { thread } = await files.request('thread/start', { historyMode: 'paginated' });
    for (const input of ['one', 'two', 'three']) {
      const { turn } = await files.request('turn/start', { threadId: thread.id, input: text(input) });
      await files.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    }
    const turns = (await files.request('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns as Message[];
    const { thread: fork } = await files.request('thread/fork', { threadId: thread.id, lastTurnId: turns[1]!.id });
    await files.request('thread/revert', { threadId: thread.id, beforeTurnId: turns[2]!.id });
    threads = [thread.id, fork.id];
    for (const threadId of threads) {
      await files.request('thread/unsubscribe', { threadId });
      await files.waitForNotification('thread/closed', (p: Message) => p.threadId === threadId);
      reads[threadId] = await files.request('thread/read', { threadId, includeTurns: true });
    }
  } finally {
    expect(await files.close()).toBe(0);
  }
  expect(threads.map((threadId) => (reads[threadId]!.thread.turns as Message[]).map((turn) => turn.items[0].content[0].text))).toEqual([
    ['one', 'two'],
    ['one', 'two'],
  ]);
  const forkDb = await testDatabase();
  const imported = runFleet(forkDb, join(scratch, 'host-home'), 'import', forkHome);
  expect({ status: imported.status, stderr: imported.stderr }).toEqual({ status: 0, stderr: '' });
  // The revert's first file is not a thread of its own; again, nothing changes.
  expect(runFleet(forkDb, join(scratch, 'host-home'), 'import', forkHome).stdout.split('\n')[0]).toBe('0 threads imported, 0 grown, 2 unchanged, 0 skipped (0 lines stored)');
  const store = await TestServer.start({ modelUrl: mock.url, rootConfig: postgresLines(forkDb).join('\n') });
  try {
    for (const threadId of threads) expect(withoutPath(await store.request('thread/read', { threadId, includeTurns: true }))).toEqual(withoutPath(reads[threadId]!));
  } finally {
    expect(await store.close()).toBe(0);
  }
});
