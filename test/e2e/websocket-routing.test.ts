// Many WebSocket clients on one process: each initializes on its own, thread lifecycle
// notifications go to every initialized connection, turn and item events only to the
// thread's subscribers, and an uninitialized connection receives nothing.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { WsServer, RpcReplyError } from '../helpers/ws-server.js';
import { turnMethods } from '../helpers/turn-methods.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Hello there', deltaChunks: 2 });
});
afterAll(() => mock.close());

const text = (t: string) => [{ type: 'text', text: t, text_elements: [] }];

// What a subscriber sees of one turn, in the reference's order.
const TURN_METHODS = turnMethods(2);

test('thread and status notifications reach every initialized client; turn events only the subscribers', async () => {
  const server = await WsServer.start({ modelUrl: mock.url });
  const [a, b, c] = [await server.connect({ clientName: 'a' }), await server.connect({ clientName: 'b' }), await server.connect({ clientName: 'c' })];
  const silent = await server.connect({ initialize: false });

  const { thread } = await a.request('thread/start', {});
  await b.waitForNotification('thread/started');
  await c.waitForNotification('thread/started');
  await a.request('turn/start', { threadId: thread.id, input: text('first') });
  await a.waitForNotification('turn/completed');
  await c.waitForNotification('thread/status/changed', (p) => p.status.type === 'idle');
  // b joins as a second subscriber (a thread can be resumed once it has a turn); c stays an onlooker.
  await b.request('thread/resume', { threadId: thread.id });
  await b.waitFor((m) => m.method === 'thread/tokenUsage/updated');
  const bBefore = b.methods().length;
  const cBefore = c.methods().length;
  const aBefore = a.methods().length;

  await a.request('turn/start', { threadId: thread.id, input: text('second') });
  await a.waitForNotification('turn/completed', (p) => a.methods().length - aBefore === TURN_METHODS.length && p.threadId === thread.id);
  await b.waitFor((m) => m.method === 'turn/completed' && b.methods().length - bBefore === TURN_METHODS.length);
  await c.waitFor((m) => m.method === 'thread/status/changed' && m.params.status.type === 'idle' && c.methods().length - cBefore === 3);

  expect(a.methods().slice(aBefore)).toEqual(TURN_METHODS);
  expect(b.methods().slice(bBefore)).toEqual(TURN_METHODS);
  // A read state changes for every client, as the thread's status does.
  const onlookerTurn = ['thread/status/changed', 'thread/readState/changed', 'thread/status/changed'];
  expect(c.methods().slice(cBefore)).toEqual(onlookerTurn);
  expect(c.methods()).toEqual(['thread/started', ...onlookerTurn, ...onlookerTurn]);
  const samples = ['thread_host_turns_started_total', 'thread_host_turns_ended_total{status="completed"}', 'thread_host_writer_lock_acquisitions_total{outcome="acquired"}', 'thread_host_connections'];
  expect(await Promise.all(samples.map((name) => server.metric(name)))).toEqual([2, 2, 1, 4]);
  // A request on the uninitialized connection is refused; it has received nothing else.
  await expect(silent.request('thread/loaded/list', {})).rejects.toEqual(new RpcReplyError(-32600, 'Not initialized'));
  expect(silent.received).toEqual([{ error: { code: -32600, message: 'Not initialized' }, id: 0 }]);
  expect(await server.stop()).toBe(0);
});

test('each connection initializes once on its own, and bad frames are dropped without closing it', async () => {
  const server = await WsServer.start();
  const a = await server.connect();
  await expect(a.request('initialize', { clientInfo: { name: 'x', title: null, version: '1' } })).rejects.toEqual(
    new RpcReplyError(-32600, 'Already initialized'),
  );
  const b = await server.connect({ initialize: false });
  b.ws.send('{"not json');
  b.ws.send(Buffer.from(JSON.stringify({ id: 99, method: 'thread/loaded/list', params: {} })), { binary: true });
  b.ws.send('[{"id":98,"method":"thread/loaded/list","params":{}}]');
  await b.initialize();
  expect(await b.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
  expect(b.received.map((m) => m.id)).toEqual([0, 1]);
  expect(await server.stop()).toBe(0);
});
