import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
const sec = expect.any(Number);
const ms = expect.any(Number);

test('a turn streams the reference notification order and shapes to the subscribed client', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const started = await server.request('thread/start', {});
  const threadId: string = started.thread.id;
  const turnReply = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
  const turnId: string = turnReply.turn.id;
  expect(turnReply).toEqual({
    turn: { id: UUID, rootTurnId: turnId, items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: null, completedAt: null, durationMs: null },
  });
  await server.waitForNotification('turn/completed');
  const sequence = server.received
    .filter((m: Message) => 'method' in m)
    .map((m: Message) => m.method);
  expect(sequence).toEqual([
    'thread/started',
    'thread/status/changed',
    'turn/started',
    'item/started',
    'item/completed',
    'item/started',
    'item/completed',
    'thread/tokenUsage/updated',
    'thread/readState/changed',
    'thread/status/changed',
    'turn/completed',
  ]);
  const params = server.notifications().map((m) => m.params);
  const userItem = {
    type: 'userMessage',
    id: UUID,
    clientId: null,
    content: [{ type: 'text', text: 'hello', text_elements: [] }],
    startedAtMs: ms,
    completedAtMs: ms,
  };
  const agentItem = { type: 'agentMessage', moderation: null, id: 'msg-1', text: 'Done', phase: null, memoryCitation: null, delivery: null, questions: null, startedAtMs: ms, completedAtMs: ms };
  expect(params.slice(1)).toEqual([
    { threadId, status: { type: 'active', activeFlags: [] } },
    { threadId, turn: { id: turnId, rootTurnId: turnId, items: [], itemsView: 'notLoaded', status: 'inProgress', error: null, startedAt: sec, completedAt: null, durationMs: null } },
    { item: { ...userItem, completedAtMs: null }, threadId, turnId, startedAtMs: ms },
    { item: userItem, threadId, turnId, contentTokenCount: null, completedAtMs: ms },
    { item: { ...agentItem, completedAtMs: null }, threadId, turnId, startedAtMs: ms },
    { item: agentItem, threadId, turnId, contentTokenCount: null, completedAtMs: ms },
    {
      threadId,
      turnId,
      tokenUsage: {
        total: { totalTokens: 0, inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 },
        last: { totalTokens: 0, inputTokens: 0, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0 },
        modelContextWindow: 258400,
      },
    },
    { threadId, readState: { firstUnread: { type: 'turn', turnId }, revision: expect.stringMatching(/^[0-9a-f-]{36}$/) } },
    { threadId, status: { type: 'idle' } },
    { threadId, turn: { id: turnId, rootTurnId: turnId, items: [agentItem], itemsView: 'summary', status: 'completed', error: null, startedAt: sec, completedAt: sec, durationMs: expect.any(Number) } },
  ]);
  for (const m of server.notifications()) expect(typeof m.emittedAtMs).toBe('number');
  expect(await server.close()).toBe(0);
});

test('text deltas from the model arrive as item/agentMessage/delta between item started and completed', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', {});
  mock.enqueue({ kind: 'reply', text: 'Hello!', deltaChunks: 2 });
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
  const completed = await server.waitForNotification('turn/completed');
  const agentEvents = server
    .notifications()
    .filter((m) => m.method === 'item/agentMessage/delta' || m.params?.item?.type === 'agentMessage')
    .map((m) => [m.method, m.params.item?.text ?? m.params.delta]);
  expect(agentEvents).toEqual([
    ['item/started', ''],
    ['item/agentMessage/delta', 'Hel'],
    ['item/agentMessage/delta', 'lo!'],
    ['item/completed', 'Hello!'],
  ]);
  expect(completed.turn.items.map((item: Message) => item.text)).toEqual(['Hello!']);
  expect(await server.close()).toBe(0);
});

test('the model receives the whole history, instructions, and the Responses body the reference sends', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', { baseInstructions: 'base rules', developerInstructions: 'dev rules' });
  const before = mock.requests.length;
  for (const text of ['first', 'second']) {
    await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
    await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
  }
  const bodies = mock.requests.slice(before).map((r) => r.body as Message);
  const msg = (role: string, text: string) => ({ type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] });
  expect(bodies.map((b) => b.input)).toEqual([
    [msg('developer', 'base rules'), msg('developer', 'dev rules'), msg('user', 'first')],
    [msg('developer', 'base rules'), msg('developer', 'dev rules'), msg('user', 'first'), msg('assistant', 'Done'), msg('user', 'second')],
  ]);
  expect(bodies.map((b) => [b.model, b.stream])).toEqual([
    ['mock-model', true],
    ['mock-model', true],
  ]);
  expect(await server.close()).toBe(0);
});
