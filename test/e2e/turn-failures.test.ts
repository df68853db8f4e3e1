import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockBehaviour, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

// The last column is what the model sees on the next turn: the failed turn's user message,
// and its assistant message when one was completed before the failure.
const failures: Array<[string, MockBehaviour, string, string, string[]]> = [
  ['an HTTP 500', { kind: 'httpError', status: 500, body: 'boom' }, 'We’re currently experiencing high demand, which may cause temporary errors.', 'internalServerError', ['hello', 'again']],
  ['response.failed', { kind: 'failed', message: 'mock failure' }, 'stream disconnected before completion: mock failure', 'other', ['hello', 'again']],
  ['a stream closed before response.completed', { kind: 'closeBeforeCompleted' }, 'stream disconnected before completion: stream closed before response.completed', 'other', ['hello', 'Done', 'again']],
];

test.each(failures)('%s fails the turn with the reference error, then the thread takes another turn', async (_name, behaviour, message, info, nextInput) => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', {});
  const threadId = thread.id;
  mock.enqueue(behaviour);
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
  const completed = await server.waitForNotification('turn/completed');
  const error = { message, codexErrorInfo: info, additionalDetails: null, misalignment: null };
  const tail = server.notifications().slice(-4).map((m) => [m.method, m.params]);
  // A failed turn is unread, as the reference publishes it (reference-answers/thread-read-state.jsonl).
  const readState = { firstUnread: { type: 'turn', turnId: turn.id }, revision: expect.stringMatching(/^[0-9a-f-]{36}$/) };
  expect(tail).toEqual([
    ['thread/status/changed', { threadId, status: { type: 'systemError' } }],
    ['error', { error, willRetry: false, threadId, turnId: turn.id }],
    ['thread/readState/changed', { threadId, readState }],
    ['turn/completed', completed],
  ]);
  expect(completed).toEqual({
    threadId,
    turn: { id: turn.id, rootTurnId: turn.id, items: [], itemsView: 'notLoaded', status: 'failed', error, startedAt: expect.any(Number), completedAt: expect.any(Number), durationMs: expect.any(Number) },
  });
  expect((await server.request('thread/read', { threadId })).thread.status).toEqual({ type: 'systemError' });
  await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'again' }] });
  expect((await server.waitForNotification('turn/completed')).turn.status).toBe('completed');
  const lastBody = mock.requests.at(-1)!.body as { input: Array<{ content: Array<{ text: string }> }> };
  expect(lastBody.input.map((m) => m.content[0]!.text)).toEqual(nextInput);
  const read = await server.request('thread/read', { threadId, includeTurns: true });
  expect([read.thread.status, read.thread.turns.map((t: { status: string }) => t.status)]).toEqual([{ type: 'idle' }, ['failed', 'completed']]);
  expect(await server.close()).toBe(0);
});

test('turn/interrupt ends a running turn as interrupted, and interrupting again has no active turn', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const { thread } = await server.request('thread/start', {});
  const threadId = thread.id;
  mock.enqueue({ kind: 'stall', ms: 20_000 });
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'slow' }] });
  await server.waitForNotification('turn/started');
  expect(await server.request('turn/interrupt', { threadId, turnId: turn.id })).toEqual({});
  const completed = await server.waitForNotification('turn/completed');
  expect(completed).toEqual({
    threadId,
    turn: { id: turn.id, rootTurnId: turn.id, items: [], itemsView: 'notLoaded', status: 'interrupted', error: null, startedAt: expect.any(Number), completedAt: expect.any(Number), durationMs: expect.any(Number) },
  });
  expect(server.notifications('thread/status/changed').at(-1)!.params).toEqual({ threadId, status: { type: 'idle' } });
  expect((await server.requestRaw('turn/interrupt', { threadId, turnId: turn.id })).error).toEqual({ code: -32600, message: 'no active turn to interrupt' });
  expect(await server.close()).toBe(0);
});
