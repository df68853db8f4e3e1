// Lines of several megabytes are decoded and parsed off the main thread; over the wire that
// must change nothing but timing: the same replies, a connection's replies in the order of its
// requests, and the turn's text recorded exactly as sent.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { WsServer } from '../helpers/ws-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

// ~6 MB of text with what costs a parser most: escapes, non-ASCII, a surrogate pair.
const HUGE_TEXT = 'line "quoted"\tcafé — ✓ 🚀\n'.repeat(200_000);

const replies = (received: Message[]): unknown[] => received.filter((m) => !('method' in m)).map((m) => m.id);

test('over stdio, a 6 MB turn/start is answered in order with the requests around it, and its text is recorded exactly', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', {});
  const from = server.received.length;
  const turn = JSON.stringify({ id: 'huge', method: 'turn/start', params: { threadId: thread.id, input: [{ type: 'text', text: HUGE_TEXT }] } });
  // Written back to back: the small requests after the huge line arrive before it is parsed.
  server.sendText(JSON.stringify({ id: 'before', method: 'thread/loaded/list', params: {} }));
  server.sendText(`${turn}\r`);
  server.sendText(JSON.stringify({ id: 'after', method: 'thread/loaded/list', params: {} }));
  server.sendText(`{"id":"dup","id":"dup2","method":"thread/loaded/list","params":{"pad":"${'x'.repeat(100_000)}"}}`);
  server.sendText(JSON.stringify({ id: 'last', method: 'thread/loaded/list', params: {} }));
  await server.waitFor((m) => m.id === 'last');
  await server.waitForNotification('turn/completed');
  expect(replies(server.received.slice(from))).toEqual(['before', 'huge', 'after', 'last']);
  // Both echoes of the input (serialized and encoded in the pool worker, spliced in as bytes).
  const echoes = server.received.slice(from).filter((m) => (m.method === 'item/started' || m.method === 'item/completed') && m.params.item.type === 'userMessage');
  expect(echoes.map((m) => [m.method, m.params.item.content])).toEqual([
    ['item/started', [{ type: 'text', text: HUGE_TEXT, text_elements: [] }]],
    ['item/completed', [{ type: 'text', text: HUGE_TEXT, text_elements: [] }]],
  ]);
  const read = await server.request('thread/read', { threadId: thread.id, includeTurns: true });
  expect(read.thread.turns[0].items[0].content).toEqual([{ type: 'text', text: HUGE_TEXT, text_elements: [] }]);
  expect(await server.close()).toBe(0);
}, 60_000);

test('over WebSocket, each connection keeps its order around a huge message, and a huge malformed one gets no reply', async () => {
  const server = await WsServer.start({ modelUrl: mock.url });
  const [a, b] = [await server.connect({ clientName: 'a' }), await server.connect({ clientName: 'b' })];
  const { thread } = await a.request('thread/start', {});
  const fromA = a.received.length;
  a.sendText(JSON.stringify({ id: 'huge', method: 'turn/start', params: { threadId: thread.id, input: [{ type: 'text', text: HUGE_TEXT }] } }));
  a.sendText(JSON.stringify({ id: 'after', method: 'thread/loaded/list', params: {} }));
  a.sendText(`{"id":"dup","id":"dup2","method":"thread/loaded/list","params":{"pad":"${'x'.repeat(100_000)}"}}`);
  a.sendText(JSON.stringify({ id: 'last', method: 'thread/loaded/list', params: {} }));
  expect(await b.request('thread/loaded/list', {})).toEqual({ data: [thread.id], nextCursor: null });
  await a.waitFor((m) => m.id === 'last');
  expect(replies(a.received.slice(fromA))).toEqual(['huge', 'after', 'last']);
  // The text comes back whole in the echoed user message (a frame the host encodes itself).
  const echoed = await a.waitFor((m) => m.method === 'item/completed' && m.params.item.type === 'userMessage');
  const started = a.received.find((m) => m.method === 'item/started' && m.params.item.type === 'userMessage');
  expect([started?.params.item.content, echoed.params.item.content]).toEqual([
    [{ type: 'text', text: HUGE_TEXT, text_elements: [] }],
    [{ type: 'text', text: HUGE_TEXT, text_elements: [] }],
  ]);
  expect(await server.stop()).toBe(0);
}, 60_000);
