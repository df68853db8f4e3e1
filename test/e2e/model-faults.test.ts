// Each way a provider fails, end to end: the turn is retried as far as the provider table
// allows, then ends with `error` + `turn/completed` failed, the rollout records the failure
// as a task_complete carrying the error, and the thread takes another turn. HTTP 500 and
// response.failed without retries are in turn-failures.test.ts.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockBehaviour, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

/** `-c` overrides of the mock provider's table. */
function providerArgs(settings: Record<string, number>): string[] {
  return Object.entries(settings).flatMap(([key, value]) => ['-c', `model_providers.mock_provider.${key}=${value}`]);
}

/** The rollout's lines, parsed. */
function rolloutLines(path: string): Message[] {
  return readFileSync(path, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Message);
}

/** The task_complete line the rollout must end a failed turn with (`info` in wire camelCase). */
function failedTaskComplete(turnId: string, message: string, info: string): Message {
  const snakeInfo = info.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return {
    timestamp: expect.any(String),
    // New threads are paginated: the first turn's end follows session_meta (0), task_started,
    // turn_context, the user's response_item and its item_completed.
    ordinal: 5,
    type: 'event_msg',
    payload: {
      type: 'task_complete',
      root_turn_id: turnId,
      turn_id: turnId,
      last_agent_message: null,
      error: { message, codex_error_info: snakeInfo },
      started_at: expect.any(Number),
      completed_at: expect.any(Number),
      duration_ms: expect.any(Number),
    },
  };
}

/**
 * Runs one turn that must fail with `message`/`info`, checks the notifications and the rollout,
 * then runs a turn that must complete. Returns the failed turn's id.
 */
async function expectFailedTurnThenRecovery(server: TestServer, message: string, info: string): Promise<string> {
  const { thread } = await server.request('thread/start', {});
  const threadId = thread.id;
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
  const completed = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  const error = { message, codexErrorInfo: info, additionalDetails: null, misalignment: null };
  // A failed turn is unread, as the reference publishes it (reference-answers/thread-read-state.jsonl).
  const readState = { firstUnread: { type: 'turn', turnId: turn.id }, revision: expect.stringMatching(/^[0-9a-f-]{36}$/) };
  expect(server.notifications().slice(-4).map((m) => [m.method, m.params])).toEqual([
    ['thread/status/changed', { threadId, status: { type: 'systemError' } }],
    ['error', { error, willRetry: false, threadId, turnId: turn.id }],
    ['thread/readState/changed', { threadId, readState }],
    ['turn/completed', completed],
  ]);
  expect([completed.turn.status, completed.turn.error]).toEqual(['failed', error]);
  // turn/completed is sent only after the turn's lines reached the kernel.
  expect(rolloutLines(thread.path).at(-1)).toEqual(failedTaskComplete(turn.id, message, info));

  const next = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'again' }] });
  const recovered = await server.waitForNotification('turn/completed', (p) => p.turn.id === next.turn.id);
  expect([recovered.turn.status, recovered.turn.items.map((item: Message) => item.text)]).toEqual(['completed', ['Done']]);
  const read = await server.request('thread/read', { threadId, includeTurns: true });
  expect(read.thread.turns.map((t: Message) => [t.status, t.error])).toEqual([
    ['failed', error],
    ['completed', null],
  ]);
  return turn.id;
}

interface FaultCase {
  name: string;
  /** Queued on the mock, one per request the host is expected to make. */
  behaviours: MockBehaviour[];
  provider: Record<string, number>;
  message: string;
  info: string;
}

const faults: FaultCase[] = [
  {
    name: 'an HTTP 500 on every attempt',
    behaviours: [500, 500, 500].map((status) => ({ kind: 'httpError', status, body: 'boom' })),
    provider: { request_max_retries: 2 },
    message: 'We’re currently experiencing high demand, which may cause temporary errors.',
    info: 'internalServerError',
  },
  {
    name: 'a stream cut in the middle of an event on every attempt',
    behaviours: [{ kind: 'cutMidStream' }, { kind: 'cutMidStream' }],
    provider: { stream_max_retries: 1 },
    message: 'stream disconnected before completion: error decoding response body',
    info: 'other',
  },
  {
    name: 'a stream that stalls past stream_idle_timeout_ms',
    behaviours: [{ kind: 'stall', ms: 20_000 }],
    provider: { stream_idle_timeout_ms: 300 },
    message: 'stream disconnected before completion: idle timeout waiting for SSE',
    info: 'other',
  },
  {
    name: 'malformed SSE that never completes',
    behaviours: [{ kind: 'malformed' }],
    provider: {},
    message: 'stream disconnected before completion: stream closed before response.completed',
    info: 'other',
  },
  {
    name: 'response.failed on every attempt',
    behaviours: [{ kind: 'failed', message: 'mock failure' }, { kind: 'failed', message: 'mock failure' }],
    provider: { stream_max_retries: 1 },
    message: 'stream disconnected before completion: mock failure',
    info: 'other',
  },
];

test.each(faults)('$name is retried as configured, then fails the turn, is recorded, and the thread takes another turn', async (fault) => {
  const server = await TestServer.start({ modelUrl: mock.url, args: providerArgs(fault.provider) });
  const before = mock.requests.length;
  for (const behaviour of fault.behaviours) mock.enqueue(behaviour);
  await expectFailedTurnThenRecovery(server, fault.message, fault.info);
  // Every queued behaviour was used by an attempt of the failed turn, plus one for the recovery.
  expect(mock.requests.length - before).toBe(fault.behaviours.length + 1);
  expect(await server.close()).toBe(0);
});

test('a 429 is retried after its retry-after delay, and fails the turn once request_max_retries are spent', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, args: providerArgs({ request_max_retries: 1 }) });
  const before = mock.requests.length;
  const arrivals: number[] = [];
  const watch = setInterval(() => {
    while (before + arrivals.length < mock.requests.length) arrivals.push(Date.now());
  }, 5);
  mock.enqueue({ kind: 'httpError', status: 429, body: '{"error":{"message":"slow down"}}', retryAfter: '0.5' });
  mock.enqueue({ kind: 'httpError', status: 429, body: '{"error":{"message":"slow down"}}', retryAfter: '0.5' });
  try {
    await expectFailedTurnThenRecovery(server, 'exceeded retry limit, last status: 429 Too Many Requests', 'rateLimitExceeded');
  } finally {
    clearInterval(watch);
  }
  // The retry waited for the advised 500 ms (the default backoff would have been ~200 ms).
  expect(arrivals.length).toBeGreaterThanOrEqual(2);
  expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(450);
  expect(await server.close()).toBe(0);
});

test('a 429 followed by a good response completes the turn with one agent message', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, args: providerArgs({ request_max_retries: 1 }) });
  mock.enqueue({ kind: 'httpError', status: 429, retryAfter: '0' });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  const completed = await server.waitForNotification('turn/completed');
  expect([completed.turn.status, completed.turn.items.map((item: Message) => item.text)]).toEqual(['completed', ['Done']]);
  expect(server.notifications('error')).toEqual([]);
  expect(await server.close()).toBe(0);
});

test('a stream cut once is retried and the reply is not duplicated', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, args: providerArgs({ stream_max_retries: 1 }) });
  mock.enqueue({ kind: 'cutMidStream' });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  const completed = await server.waitForNotification('turn/completed');
  expect([completed.turn.status, completed.turn.items.map((item: Message) => item.text)]).toEqual(['completed', ['Done']]);
  expect(server.notifications('item/started').map((m) => m.params.item.type)).toEqual(['userMessage', 'agentMessage']);
  expect(await server.close()).toBe(0);
});

test('a refused connection fails the turn after its retries, and the thread recovers once the provider is up', async () => {
  const port = await freePort();
  const server = await TestServer.start({ modelUrl: `http://127.0.0.1:${port}/v1`, args: providerArgs({ request_max_retries: 1 }) });
  const { thread } = await server.request('thread/start', {});
  const threadId = thread.id;
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'hello' }] });
  const failed = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  const message = `stream disconnected before completion: error sending request for url (http://127.0.0.1:${port}/v1/responses)`;
  const error = { message, codexErrorInfo: 'other', additionalDetails: null, misalignment: null };
  expect([failed.turn.status, failed.turn.error]).toEqual(['failed', error]);
  expect(server.notifications('error').map((m) => m.params)).toEqual([{ error, willRetry: false, threadId, turnId: turn.id }]);
  expect(rolloutLines(thread.path).at(-1)).toEqual(failedTaskComplete(turn.id, message, 'other'));

  const provider = await startMockModel({ port, reply: 'Back' });
  try {
    const next = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'again' }] });
    const recovered = await server.waitForNotification('turn/completed', (p) => p.turn.id === next.turn.id);
    expect([recovered.turn.status, recovered.turn.items.map((item: Message) => item.text)]).toEqual(['completed', ['Back']]);
  } finally {
    await provider.close();
  }
  expect(await server.close()).toBe(0);
});

/** A loopback port nobody listens on (bound, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}
