import net from 'node:net';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import {
  ModelAbortedError, ModelStreamError, type ModelEvent, type ModelRequest,
} from '../../../../src/actors/model/model-client.js';
import { ResponsesHttpClient, type ResponsesClientOptions } from '../../../../src/actors/model/responses-client.js';
import { startMockModel, type MockBehaviour, type MockModel } from '../../../../src/main/commands/mock-model/mock-model-server.js';

const ZERO_USAGE = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningOutputTokens: 0, totalTokens: 0 };
const DONE_EVENTS: ModelEvent[] = [
  { type: 'messageDone', itemId: 'msg-1', text: 'Done' },
  { type: 'completed', responseId: 'resp-1', usage: ZERO_USAGE },
];

let mock: MockModel;
let clients: ResponsesHttpClient[] = [];

beforeEach(async () => {
  mock = await startMockModel();
});

afterEach(async () => {
  for (const client of clients) client.close();
  clients = [];
  await mock.close();
});

function makeClient(overrides: Partial<ResponsesClientOptions> = {}): ResponsesHttpClient {
  const client = new ResponsesHttpClient({
    baseUrl: mock.url,
    apiKey: null,
    requestMaxRetries: 0,
    streamMaxRetries: 0,
    userAgent: 'thread-host-test/0.1.0',
    originator: 'codex-app-server-tests',
    retryBaseDelayMs: 1, // retries are exercised, not timed
    ...overrides,
  });
  clients.push(client);
  return client;
}

function makeRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'mock-model',
    baseInstructions: null,
    developerInstructions: null,
    history: [],
    userText: 'Hello there',
    effort: null,
    outputSchema: null,
    threadId: 'thread-1',
    turnId: 'turn-1',
    signal: new AbortController().signal,
    ...overrides,
  };
}

interface Outcome {
  events: ModelEvent[];
  error: { name: string; kind?: string; message: string; httpStatus?: number | null } | null;
  retries: Array<[number, number, string]>;
}

async function run(client: ResponsesHttpClient, request: ModelRequest = makeRequest()): Promise<Outcome> {
  const outcome: Outcome = { events: [], error: null, retries: [] };
  const onRetry = (attempt: number, max: number, reason: string): void => {
    outcome.retries.push([attempt, max, reason]);
    request.onRetry?.(attempt, max, reason);
  };
  try {
    for await (const event of client.stream({ ...request, onRetry })) outcome.events.push(event);
  } catch (error) {
    if (error instanceof ModelStreamError) {
      outcome.error = { name: error.name, kind: error.kind, message: error.message, httpStatus: error.httpStatus };
    } else if (error instanceof Error) {
      outcome.error = { name: error.name, message: error.message };
    } else {
      throw error;
    }
  }
  return outcome;
}

test('a plain reply yields the finished message and the completion', async () => {
  expect(await run(makeClient())).toEqual({ events: DONE_EVENTS, error: null, retries: [] });
});

test('deltas stream between the message start and the finished message', async () => {
  mock.enqueue({ kind: 'reply', text: 'Hello world', deltaChunks: 3 });
  expect((await run(makeClient())).events).toEqual([
    { type: 'messageStarted', itemId: 'msg-1' },
    { type: 'textDelta', itemId: null, delta: 'Hel' },
    { type: 'textDelta', itemId: null, delta: 'lo w' },
    { type: 'textDelta', itemId: null, delta: 'orld' },
    { type: 'messageDone', itemId: 'msg-1', text: 'Hello world' },
    { type: 'completed', responseId: 'resp-1', usage: ZERO_USAGE },
  ]);
});

const disconnected = (reason: string): Outcome['error'] => ({
  name: 'ModelStreamError', kind: 'streamDisconnected', message: `stream disconnected before completion: ${reason}`, httpStatus: null,
});

interface FailureCase {
  name: string;
  behaviour: MockBehaviour;
  eventsBefore: ModelEvent[];
  error: (url: string) => Outcome['error'];
  /** Only the idle case shortens the idle timeout, so a slow CI machine cannot trip the others. */
  options?: Partial<ResponsesClientOptions>;
}

const RETRYABLE_FAILURES: FailureCase[] = [
  {
    name: 'HTTP 500',
    behaviour: { kind: 'httpError', status: 500, body: 'oops' },
    eventsBefore: [],
    error: () => ({
      name: 'ModelStreamError', kind: 'internalServerError', httpStatus: 500,
      message: 'We’re currently experiencing high demand, which may cause temporary errors.',
    }),
  },
  {
    name: 'HTTP 502 with a JSON error',
    behaviour: { kind: 'httpError', status: 502, body: '{"error":{"message":"upstream down"}}' },
    eventsBefore: [],
    error: (url) => ({
      name: 'ModelStreamError', kind: 'unexpectedStatus', httpStatus: 502,
      message: `unexpected status 502 Bad Gateway: upstream down, url: ${url}/responses`,
    }),
  },
  {
    name: 'HTTP 503 with an empty body',
    behaviour: { kind: 'httpError', status: 503 },
    eventsBefore: [],
    error: (url) => ({
      name: 'ModelStreamError', kind: 'unexpectedStatus', httpStatus: 503,
      message: `unexpected status 503 Service Unavailable: Unknown error, url: ${url}/responses`,
    }),
  },
  {
    name: 'HTTP 429',
    behaviour: { kind: 'httpError', status: 429, body: '{"error":{"message":"slow down"}}', retryAfter: 0 },
    eventsBefore: [],
    error: () => ({
      name: 'ModelStreamError', kind: 'retryLimit', httpStatus: 429,
      message: 'exceeded retry limit, last status: 429 Too Many Requests',
    }),
  },
  {
    name: 'response.failed',
    behaviour: { kind: 'failed', message: 'the model broke' },
    eventsBefore: [],
    error: () => disconnected('the model broke'),
  },
  {
    name: 'a body that ends before response.completed',
    behaviour: { kind: 'closeBeforeCompleted' },
    eventsBefore: [{ type: 'messageDone', itemId: 'msg-1', text: 'Done' }],
    error: () => disconnected('stream closed before response.completed'),
  },
  {
    name: 'a connection cut mid-event',
    behaviour: { kind: 'cutMidStream' },
    eventsBefore: [],
    error: () => disconnected('error decoding response body'),
  },
  {
    name: 'events that are not JSON',
    behaviour: { kind: 'malformed' },
    eventsBefore: [],
    error: () => disconnected('stream closed before response.completed'),
  },
  {
    name: 'a stream that goes idle',
    behaviour: { kind: 'stall', ms: 20_000 },
    options: { streamIdleTimeoutMs: 50 },
    eventsBefore: [],
    error: () => disconnected('idle timeout waiting for SSE'),
  },
];

test.each(RETRYABLE_FAILURES)('$name fails the turn with the reference text when retries are off', async (failure) => {
  mock.enqueue(failure.behaviour);
  const outcome = await run(makeClient(failure.options));
  expect(outcome).toEqual({ events: failure.eventsBefore, error: failure.error(mock.url), retries: [] });
  expect(mock.requests.length).toEqual(1);
});

test.each(RETRYABLE_FAILURES)('$name is retried once and the retry succeeds without repeating events', async (failure) => {
  mock.enqueue(failure.behaviour);
  const outcome = await run(makeClient({ requestMaxRetries: 1, streamMaxRetries: 1, ...failure.options }));
  expect(outcome).toEqual({ events: DONE_EVENTS, error: null, retries: [[1, 1, failure.error(mock.url)?.message ?? '']] });
  expect(mock.requests.length).toEqual(2);
});

test.each([
  { status: 400, body: 'bad input', kind: 'invalidRequest', message: () => 'bad input' },
  {
    status: 404, body: 'no such route', kind: 'unexpectedStatus',
    message: (url: string) => `unexpected status 404 Not Found: no such route, url: ${url}/responses`,
  },
])('HTTP $status is never retried', async ({ status, body, kind, message }) => {
  mock.enqueue({ kind: 'httpError', status, body });
  const outcome = await run(makeClient({ requestMaxRetries: 3, streamMaxRetries: 3 }));
  expect(outcome).toEqual({
    events: [], error: { name: 'ModelStreamError', kind, httpStatus: status, message: message(mock.url) }, retries: [],
  });
  expect(mock.requests.length).toEqual(1);
});

test('retry-after from the server replaces the backoff', async () => {
  mock.enqueue({ kind: 'httpError', status: 503, retryAfter: 0 });
  // A one-minute backoff would outlast the test timeout; the server's 0 s advice must win.
  const outcome = await run(makeClient({ requestMaxRetries: 1, retryBaseDelayMs: 60_000 }));
  expect(outcome.events).toEqual(DONE_EVENTS);
  expect(outcome.retries.length).toEqual(1);
}, 5_000);

test('a retried stream that replays different events fails instead of contradicting what was shown', async () => {
  mock.enqueue({ kind: 'closeBeforeCompleted' });
  mock.enqueue({ kind: 'reply', text: 'Something else' });
  const outcome = await run(makeClient({ streamMaxRetries: 1 }));
  expect(outcome).toEqual({
    events: [{ type: 'messageDone', itemId: 'msg-1', text: 'Done' }],
    error: disconnected('stream closed before response.completed'),
    retries: [[1, 1, 'stream disconnected before completion: stream closed before response.completed']],
  });
});

test('a refused connection fails with the reference send-error text after its retries', async () => {
  const port = mock.port;
  await mock.close();
  mock = await startMockModel(); // afterEach closes this one
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const message = `stream disconnected before completion: error sending request for url (${baseUrl}/responses)`;
  const outcome = await run(makeClient({ baseUrl, requestMaxRetries: 1 }));
  expect(outcome).toEqual({
    events: [], error: { name: 'ModelStreamError', kind: 'streamDisconnected', httpStatus: null, message }, retries: [[1, 1, message]],
  });
});

test('a provider that never sends headers times out with the reference text', async () => {
  const silent = net.createServer(() => { /* accept and say nothing */ });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as net.AddressInfo;
  try {
    const outcome = await run(makeClient({ baseUrl: `http://127.0.0.1:${port}/v1`, requestTimeoutMs: 50 }));
    expect(outcome.error).toEqual({ name: 'ModelStreamError', kind: 'requestTimeout', httpStatus: null, message: 'request timed out' });
  } finally {
    silent.close();
  }
});

test('the request carries no authorization header without an API key', async () => {
  await run(makeClient());
  const headers = mock.requests[0]?.headers ?? {};
  expect({
    path: mock.requests[0]?.path,
    authorization: headers.authorization,
    'content-type': headers['content-type'],
    accept: headers.accept,
    originator: headers.originator,
    'session-id': headers['session-id'],
    'thread-id': headers['thread-id'],
    'user-agent': headers['user-agent'],
  }).toEqual({
    path: '/v1/responses',
    authorization: undefined,
    'content-type': 'application/json',
    accept: 'text/event-stream',
    originator: 'codex-app-server-tests',
    'session-id': 'thread-1',
    'thread-id': 'thread-1',
    'user-agent': 'thread-host-test/0.1.0',
  });
});

test('the request carries a bearer token when an API key is given', async () => {
  await run(makeClient({ apiKey: 'sk-test' }));
  expect(mock.requests[0]?.headers.authorization).toEqual('Bearer sk-test');
});

test('a first turn sends only the user message, and asks for the reasoning summary as the reference does', async () => {
  await run(makeClient());
  expect(mock.requests[0]?.body).toEqual({
    model: 'mock-model',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] }],
    tools: [],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { summary: 'auto' },
    store: false,
    include: ['reasoning.encrypted_content'],
    stream: true,
  });
});

test('instructions, history, effort and an output schema all reach the body', async () => {
  const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
  await run(makeClient(), makeRequest({
    baseInstructions: 'You are a helpful assistant.',
    developerInstructions: 'Answer briefly.',
    history: [{ role: 'user', text: 'Hi' }, { role: 'assistant', text: 'Done' }],
    userText: 'Again',
    effort: 'low',
    outputSchema: schema,
  }));
  expect(mock.requests[0]?.body).toEqual({
    model: 'mock-model',
    input: [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a helpful assistant.' }] },
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Answer briefly.' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Again' }] },
    ],
    tools: [],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { effort: 'low', summary: 'auto' },
    store: false,
    include: ['reasoning.encrypted_content'],
    stream: true,
    text: { format: { type: 'json_schema', strict: true, schema, name: 'codex_output_schema' } },
  });
});

test('consecutive turns reuse one keep-alive connection', async () => {
  const client = makeClient();
  await run(client);
  await run(client);
  expect({ requests: mock.requests.length, connections: mock.connections }).toEqual({ requests: 2, connections: 1 });
});

test('an already aborted signal fails without sending a request', async () => {
  const controller = new AbortController();
  controller.abort();
  const outcome = await run(makeClient(), makeRequest({ signal: controller.signal }));
  expect(outcome).toEqual({ events: [], error: { name: 'ModelAbortedError', message: 'model request aborted' }, retries: [] });
  expect(mock.requests.length).toEqual(0);
});

test('aborting a stalled stream ends it with ModelAbortedError', async () => {
  mock.enqueue({ kind: 'stall', ms: 20_000 });
  const controller = new AbortController();
  const pending = run(makeClient(), makeRequest({ signal: controller.signal }));
  await vi.waitFor(() => expect(mock.requests.length).toEqual(1));
  controller.abort();
  expect(await pending).toEqual({ events: [], error: { name: 'ModelAbortedError', message: 'model request aborted' }, retries: [] });
});

test('aborting during a retry backoff ends the wait at once', async () => {
  mock.enqueue({ kind: 'httpError', status: 503 });
  const controller = new AbortController();
  const client = makeClient({ requestMaxRetries: 5, retryBaseDelayMs: 60_000 });
  const outcome = await run(client, makeRequest({ signal: controller.signal, onRetry: () => controller.abort() }));
  expect(outcome.error).toEqual({ name: 'ModelAbortedError', message: 'model request aborted' });
  expect(mock.requests.length).toEqual(1);
}, 5_000);

test('events already parsed are not handed out after an abort', async () => {
  mock.enqueue({ kind: 'reply', text: 'one two three', deltaChunks: 3 });
  const controller = new AbortController();
  const events: ModelEvent[] = [];
  const stream = makeClient().stream(makeRequest({ signal: controller.signal }));
  await expect((async () => {
    for await (const event of stream) {
      events.push(event);
      controller.abort();
    }
  })()).rejects.toThrowError(ModelAbortedError);
  expect(events).toEqual([{ type: 'messageStarted', itemId: 'msg-1' }]);
});

test('a caller that stops reading at the completion still leaves the connection reusable', async () => {
  const client = makeClient();
  for await (const event of client.stream(makeRequest())) {
    if (event.type === 'completed') break;
  }
  await run(client);
  expect({ requests: mock.requests.length, connections: mock.connections }).toEqual({ requests: 2, connections: 1 });
});
