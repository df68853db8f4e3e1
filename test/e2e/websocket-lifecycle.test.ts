// Connections come and go without the process noticing beyond their subscriptions: a client
// that closes (cleanly, or abruptly in the middle of a turn) is unsubscribed from everything,
// which feeds the idle-unload rule; only SIGTERM/SIGINT stop the server, gracefully.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { STAGGER_CHUNK } from '../../src/main/staggered-output.js';
import { WsServer } from '../helpers/ws-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

test('a subscriber dropped mid-turn leaves the turn running; the thread unloads once idle, and fds return to where they were', async () => {
  const server = await WsServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
  const observer = await server.connect();
  // One whole thread life first, so the pool's and the model connection's fds are in the baseline.
  const warm = await observer.request('thread/start', {});
  await observer.request('turn/start', { threadId: warm.thread.id, input: text('warm') });
  await observer.waitForNotification('turn/completed');
  await observer.request('thread/unsubscribe', { threadId: warm.thread.id });
  await observer.waitForNotification('thread/closed', (p) => p.threadId === warm.thread.id);
  const fdsBefore = await settledFds(server);

  const owner = await server.connect();
  const { thread } = await owner.request('thread/start', {});
  mock.enqueue({ kind: 'stall', ms: 1_000 });
  await owner.request('turn/start', { threadId: thread.id, input: text('hello') });
  await owner.waitForNotification('turn/started');
  expect(await owner.disconnect('terminate')).toBe(1006);

  // The turn finishes, then the thread (no subscribers left) unloads.
  const statusTail = async () => {
    await observer.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
    return observer.notifications().filter((m) => (m.params?.threadId ?? m.params?.thread?.id) === thread.id).map((m) => [m.method, m.params.status?.type ?? null]);
  };
  expect(await statusTail()).toEqual([
    ['thread/started', null],
    ['thread/status/changed', 'active'],
    ['thread/readState/changed', null],
    ['thread/status/changed', 'idle'],
    ['thread/status/changed', 'notLoaded'],
    ['thread/closed', null],
  ]);
  expect(await observer.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
  // A quiet actor's rollout is closed in the background after thread/closed (fenced unload).
  await expect.poll(() => server.openFds(), { timeout: 5_000 }).toBe(fdsBefore);
  const samples = ['thread_host_unloads_total{reason="idle",outcome="complete"}', 'thread_host_unload_duration_seconds_count', 'thread_host_turn_duration_seconds_count'];
  expect(await Promise.all(samples.map((name) => server.metric(name)))).toEqual([2, 2, 2]);
  expect(await server.stop()).toBe(0);
});

test('a thread keeps its other subscriber when one client closes cleanly', async () => {
  const server = await WsServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' });
  const [a, b] = [await server.connect(), await server.connect()];
  const { thread } = await a.request('thread/start', {});
  await a.request('turn/start', { threadId: thread.id, input: text('one') });
  await a.waitForNotification('turn/completed');
  await b.request('thread/resume', { threadId: thread.id });
  expect(await a.disconnect('close')).toBe(1000);
  await b.request('turn/start', { threadId: thread.id, input: text('two') });
  await b.waitForNotification('turn/completed');
  expect(await b.request('thread/loaded/list', {})).toEqual({ data: [thread.id], nextCursor: null });
  expect(await b.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
  expect(await b.waitForNotification('thread/closed')).toEqual({ threadId: thread.id });
  expect(await server.stop()).toBe(0);
});

test('SIGTERM (twice, too) unloads threads mid-turn, drops the clients and exits 0', async () => {
  const server = await WsServer.start({ modelUrl: mock.url });
  const a = await server.connect();
  const { thread } = await a.request('thread/start', {});
  mock.enqueue({ kind: 'stall', ms: 3_000 });
  await a.request('turn/start', { threadId: thread.id, input: text('slow') });
  await a.waitForNotification('turn/started');
  server.process.child.kill('SIGTERM');
  await a.waitForNotification('thread/status/changed', (p) => p.status.type === 'notLoaded');
  expect(await a.closed).toBe(1006);
  expect(await server.stop()).toBe(0);
  expect(server.process.logLines().filter((l) => l.level === 'error')).toEqual([]);
});

test('SIGTERM with more clients than one staggered chunk: every client hears the thread close before its socket drops', async () => {
  const server = await WsServer.start({ modelUrl: mock.url });
  const clients = await Promise.all(Array.from({ length: STAGGER_CHUNK * 2 + 3 }, () => server.connect()));
  const { thread } = await clients[0]!.request('thread/start', {});
  await Promise.all(clients.map((client) => client.waitForNotification('thread/started')));
  server.process.child.kill('SIGTERM');
  expect(await Promise.all(clients.map((client) => client.closed))).toEqual(clients.map(() => 1006));
  const closing = ['thread/status/changed', 'thread/closed'];
  expect(clients.map((client) => client.methods().slice(-2))).toEqual(clients.map(() => closing));
  expect(clients.map((client) => client.notifications('thread/closed').map((m) => m.params))).toEqual(clients.map(() => [{ threadId: thread.id }]));
  expect(await server.stop()).toBe(0);
});

test('keepalive drops a peer that stops answering pings, and its subscriptions with it; a live idle peer stays', async () => {
  const server = await WsServer.start({ env: { THREAD_HOST_WS_PING_INTERVAL_MS: '1000' }, rootConfig: 'thread_unload_delay_secs = 0' });
  const live = await server.connect();
  // The pool is warm first, so the silent peer's thread/start is answered before two pings pass.
  const kept = await live.request('thread/start', { ephemeral: true });
  const dead = await server.connect({ autoPong: false });
  const { thread } = await dead.request('thread/start', { ephemeral: true });
  expect(await dead.closed).toBe(1006);
  expect(await live.waitForNotification('thread/closed')).toEqual({ threadId: thread.id });
  expect(server.process.logLines().filter((l) => l.msg === 'dropping websocket peer that answered no ping').length).toBe(1);
  expect(await live.request('thread/loaded/list', {})).toEqual({ data: [kept.thread.id], nextCursor: null });
  expect(await server.stop()).toBe(0);
});

/**
 * The server's fd count once it has stopped changing: an idle unload fences a quiet actor and
 * announces thread/closed at once, while the actor closes its rollout in the background.
 */
async function settledFds(server: WsServer): Promise<number> {
  let last = server.openFds();
  for (let unchanged = 0; unchanged < 5; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = server.openFds();
    unchanged = now === last ? unchanged + 1 : 0;
    last = now;
  }
  return last;
}
