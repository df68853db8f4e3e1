// A full host keeps what it has: past `max_loaded_threads` (by default what the open-file
// limit can hold) new loads are refused with -32001 before anything is opened, so the threads
// already loaded keep the descriptors their turns need. Issue 13, item 4.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { CLI, TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

// `ulimit -n` in sh sets the soft and the hard limit, so Node cannot raise it at start.
const withOpenFileLimit = (limit: number): string[] => [
  'sh',
  '-c',
  `ulimit -n ${limit}; exec "$0" "$@"`,
  process.execPath,
  CLI,
  'app-server',
  '--listen',
  'stdio://',
];

/** Sends `count` thread/starts back to back, none waiting for another; returns their replies in order. */
function startMany(server: TestServer, count: number): Promise<Message[]> {
  return Promise.all(Array.from({ length: count }, () => server.requestRaw('thread/start', {}, 30_000)));
}

const input = (text: string) => [{ type: 'text', text, text_elements: [] }];

test('at ulimit -n 256, starts past the descriptor budget get "host is full" and every turn on the admitted threads completes and is recorded', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, command: withOpenFileLimit(256), env: { THREAD_HOST_WORKERS: '2' } });
  // (256 - 64 fixed - (2 pool + 4 dedicated workers) × 4) / 3 descriptors per thread = 56.
  const full = {
    code: -32001,
    message:
      'host is full: 56 threads are loaded, the most it admits; raise the open-file limit (ulimit -n, now 256) or set max_loaded_threads (now 56), or unload threads',
    data: { reason: 'hostFull' },
  };
  const first = await startMany(server, 120);
  const admitted = first.filter((m) => 'result' in m).map((m) => m.result.thread as { id: string; path: string });
  expect(admitted.length).toBe(56);
  expect(first.filter((m) => 'error' in m).map((m) => m.error)).toEqual(Array(64).fill(full));

  // Every admitted thread takes a turn (a rollout and a model socket each) while more starts flood in.
  const turns = admitted.map((thread) => server.request('turn/start', { threadId: thread.id, input: input(`hello ${thread.id}`) }));
  const flood = startMany(server, 40);
  await Promise.all(turns);
  const completed = await Promise.all(
    admitted.map((thread) => server.waitForNotification('turn/completed', (p) => p.threadId === thread.id, 30_000)),
  );
  expect(completed.map((p) => p.turn.status)).toEqual(Array(56).fill('completed'));
  expect((await flood).map((m) => m.error)).toEqual(Array(40).fill(full));
  for (const thread of admitted) {
    const rollout = readFileSync(thread.path, 'utf8');
    expect([rollout.includes(`hello ${thread.id}`), rollout.includes('"Done"')]).toEqual([true, true]);
  }
  // The full host still lists its threads: the stored-history worker starts within the reserve.
  const listed = await server.request('thread/list', { limit: 100 });
  expect(listed.data.map((thread: { id: string }) => thread.id).sort()).toEqual(admitted.map((thread) => thread.id).sort());
  expect(server.stderr).not.toContain('EMFILE');
  expect(await server.close()).toBe(0);
}, 120_000);

test('max_loaded_threads caps loads; an idle thread without subscribers is unloaded early to make room', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'max_loaded_threads = 2\n' });
  const a = (await server.request('thread/start', {})).thread.id as string;
  const b = (await server.request('thread/start', {})).thread.id as string;
  expect((await server.requestRaw('thread/start', {})).error).toEqual({
    code: -32001,
    message: 'host is full: 2 threads are loaded, the most it admits; raise max_loaded_threads (now 2) in config.toml or unload threads',
    data: { reason: 'hostFull' },
  });
  // `a` waits out its 60 s idle delay: the next start unloads it now instead of failing.
  expect(await server.request('thread/unsubscribe', { threadId: a })).toEqual({ status: 'unsubscribed' });
  const c = (await server.request('thread/start', {})).thread.id as string;
  expect(server.notifications('thread/closed').map((m) => m.params)).toEqual([{ threadId: a }]);
  expect(await server.request('thread/loaded/list', {})).toEqual({ data: [b, c].sort(), nextCursor: null });
  expect(await server.close()).toBe(0);
});
