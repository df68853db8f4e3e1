// A client's own tools (thread/start's `dynamicTools`), end to end against a real host and the
// mock model calling them: what the model is offered, the item and the `item/tool/call`
// request the client gets, what its answer becomes for the model and the rollout, parallel
// calls answered out of order, images in answers, the answers the reference turns into failure
// texts, an interrupt while a call waits, and the thread read back after a restart. Expected
// shapes are the reference's (codex-cli 0.171.0, probed: docs/tools.md).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { EXEC_COMMAND_SPEC, WRITE_STDIN_SPEC } from '../../src/main/tools/shell/shell-tool-specs.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const SCHEMA = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false };
const TOOLS = [
  { type: 'function', name: 'plain_tool', description: 'A plain tool', inputSchema: SCHEMA },
  {
    type: 'namespace',
    name: 'my_ns',
    description: 'My namespace',
    tools: [
      { type: 'function', name: 'ns_tool', description: 'A namespaced tool', inputSchema: SCHEMA },
      { type: 'function', name: 'deferred_tool', description: 'A deferred tool', inputSchema: SCHEMA, deferLoading: true },
    ],
  },
];

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const text = (value: string) => [{ type: 'text', text: value }];
const isToolCall = (m: Message) => m.method === 'item/tool/call' && 'id' in m;

/** The server's requests for tool calls, in the order they came. */
const toolCalls = (server: TestServer) => server.received.filter(isToolCall);

function answer(server: TestServer, id: unknown, result: unknown): void {
  server.sendText(JSON.stringify({ id, result }));
}

async function waitForCalls(server: TestServer, count: number): Promise<Message[]> {
  await server.waitFor(() => toolCalls(server).length >= count, 10_000, `${count} tool calls`).catch(() => undefined);
  const calls = toolCalls(server);
  expect(calls.length).toBe(count);
  return calls;
}

/** What the model was sent from request `from` on: the tail of each input after the user's message. */
function followUps(from: number): unknown[][] {
  return mock.requests.slice(from).map((request) => {
    const input = (request.body as { input: Array<{ type: string; role?: string }> }).input;
    let last = input.length - 1;
    while (last >= 0 && !(input[last]!.type === 'message' && input[last]!.role === 'user')) last -= 1;
    return input.slice(last + 1);
  });
}

const fcoId = expect.stringMatching(/^fco_[0-9a-f-]{36}$/);

test('a call of a client tool is offered, asked, answered, recorded and read back as the reference does', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-dynamic-tools-'));
  const server = await TestServer.start({ modelUrl: mock.url, home });
  const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
  const first = mock.requests.length;
  mock.enqueue({ kind: 'output', items: [functionCallItem('call_plain_1', 'plain_tool', { x: 'hello' })] });
  mock.enqueue({ kind: 'output', items: [functionCallItem('call_ns_1', 'ns_tool', { x: 'ns' }, 'my_ns')] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg_3', 'All done')] });
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('call the tools') });

  const [plain] = await waitForCalls(server, 1);
  expect(plain).toEqual({
    method: 'item/tool/call',
    id: 0,
    params: { threadId: thread.id, turnId: turn.id, callId: 'call_plain_1', namespace: null, tool: 'plain_tool', arguments: { x: 'hello' } },
  });
  const started = await server.waitForNotification('item/started', (p) => p.item.id === 'call_plain_1');
  expect(started.item).toEqual({
    type: 'dynamicToolCall', id: 'call_plain_1', namespace: null, tool: 'plain_tool', arguments: { x: 'hello' },
    status: 'inProgress', contentItems: null, success: null, durationMs: null, startedAtMs: expect.any(Number), completedAtMs: null,
  });
  answer(server, 0, { contentItems: [{ type: 'inputText', text: 'tool says hi' }], success: true });
  const [, ns] = await waitForCalls(server, 2);
  expect(ns!.params).toEqual({ threadId: thread.id, turnId: turn.id, callId: 'call_ns_1', namespace: 'my_ns', tool: 'ns_tool', arguments: { x: 'ns' } });
  expect(ns!.id).toBe(1);
  answer(server, 1, { contentItems: [{ type: 'inputText', text: 'ns tool says hi' }], success: true });
  const completed = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  expect(completed.turn.status).toBe('completed');

  // Offered as the reference offers them: after the host's own, strict false, the deferred tool left out.
  const body = mock.requests[first]!.body as Message;
  expect(body.tools).toEqual([
    EXEC_COMMAND_SPEC,
    WRITE_STDIN_SPEC,
    { type: 'function', name: 'plain_tool', description: 'A plain tool', strict: false, parameters: SCHEMA },
    { type: 'namespace', name: 'my_ns', description: 'My namespace', tools: [{ type: 'function', name: 'ns_tool', description: 'A namespaced tool', strict: false, parameters: SCHEMA }] },
  ]);
  expect([body.tool_choice, body.parallel_tool_calls]).toEqual(['auto', true]);
  expect(followUps(first)).toEqual([
    [],
    [
      { type: 'function_call', id: 'fc_call_plain_1', name: 'plain_tool', arguments: '{"x":"hello"}', call_id: 'call_plain_1' },
      { type: 'function_call_output', id: fcoId, call_id: 'call_plain_1', output: 'tool says hi' },
    ],
    [
      { type: 'function_call', id: 'fc_call_plain_1', name: 'plain_tool', arguments: '{"x":"hello"}', call_id: 'call_plain_1' },
      { type: 'function_call_output', id: fcoId, call_id: 'call_plain_1', output: 'tool says hi' },
      { type: 'function_call', id: 'fc_call_ns_1', name: 'ns_tool', namespace: 'my_ns', arguments: '{"x":"ns"}', call_id: 'call_ns_1' },
      { type: 'function_call_output', id: fcoId, call_id: 'call_ns_1', output: 'ns tool says hi' },
    ],
  ]);

  // The notifications of the turn, in the reference's order.
  const methods = server.received
    .filter((m) => 'method' in m && ['item/started', 'item/completed', 'item/tool/call', 'thread/tokenUsage/updated'].includes(m.method as string))
    .map((m) => `${m.method as string}${m.params.item ? ` ${m.params.item.type as string}` : ''}`);
  expect(methods).toEqual([
    'item/started userMessage', 'item/completed userMessage',
    'item/started dynamicToolCall', 'item/tool/call', 'item/completed dynamicToolCall', 'thread/tokenUsage/updated',
    'item/started dynamicToolCall', 'item/tool/call', 'item/completed dynamicToolCall', 'thread/tokenUsage/updated',
    'item/started agentMessage', 'item/completed agentMessage', 'thread/tokenUsage/updated',
  ]);

  // The rollout keeps the calls as the reference writes them.
  const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
  const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
  const meta = records[0]!.payload;
  expect(meta.dynamic_tools).toEqual([
    { type: 'function', name: 'plain_tool', description: 'A plain tool', inputSchema: SCHEMA },
    { type: 'namespace', name: 'my_ns', description: 'My namespace', tools: [TOOLS[1]!.tools![0], TOOLS[1]!.tools![1]] },
  ]);
  const calls = records.filter((r) => ['function_call', 'function_call_output'].includes(r.payload.type) || r.payload.item?.type === 'DynamicToolCall');
  expect(calls.map((r) => r.payload)).toEqual([
    { type: 'function_call', id: 'fc_call_plain_1', name: 'plain_tool', arguments: '{"x":"hello"}', call_id: 'call_plain_1', internal_chat_message_metadata_passthrough: { turn_id: turn.id } },
    {
      type: 'item_completed', thread_id: thread.id, turn_id: turn.id,
      item: { type: 'DynamicToolCall', id: 'call_plain_1', tool: 'plain_tool', arguments: { x: 'hello' }, status: 'completed', content_items: [{ type: 'inputText', text: 'tool says hi' }], success: true, duration: { secs: expect.any(Number), nanos: expect.any(Number) } },
      started_at_ms: started.item.startedAtMs, completed_at_ms: expect.any(Number),
    },
    { type: 'function_call_output', id: fcoId, call_id: 'call_plain_1', output: 'tool says hi', internal_chat_message_metadata_passthrough: { turn_id: turn.id, create_time: expect.any(Number) } },
    { type: 'function_call', id: 'fc_call_ns_1', name: 'ns_tool', namespace: 'my_ns', arguments: '{"x":"ns"}', call_id: 'call_ns_1', internal_chat_message_metadata_passthrough: { turn_id: turn.id } },
    {
      type: 'item_completed', thread_id: thread.id, turn_id: turn.id,
      item: { type: 'DynamicToolCall', id: 'call_ns_1', namespace: 'my_ns', tool: 'ns_tool', arguments: { x: 'ns' }, status: 'completed', content_items: [{ type: 'inputText', text: 'ns tool says hi' }], success: true, duration: { secs: expect.any(Number), nanos: expect.any(Number) } },
      started_at_ms: expect.any(Number), completed_at_ms: expect.any(Number),
    },
    { type: 'function_call_output', id: fcoId, call_id: 'call_ns_1', output: 'ns tool says hi', internal_chat_message_metadata_passthrough: { turn_id: turn.id, create_time: expect.any(Number) } },
  ]);

  // Read back after a restart, the items are the live ones; the tools come back with the thread.
  const live = (await server.request('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns;
  await server.close();
  const again = await TestServer.start({ modelUrl: mock.url, home });
  try {
    const resumed = await again.request('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns).toEqual(live);
    expect(live[0].items.map((item: Message) => `${item.type as string} ${item.id as string}`)).toEqual([
      `userMessage ${live[0].items[0].id as string}`, 'dynamicToolCall call_plain_1', 'dynamicToolCall call_ns_1', 'agentMessage msg_3',
    ]);
    const next = mock.requests.length;
    const { turn: second } = await again.request('turn/start', { threadId: thread.id, input: text('again') });
    await again.waitForNotification('turn/completed', (p) => p.turn.id === second.turn?.id || p.turn.id === second.id);
    expect((mock.requests[next]!.body as Message).tools).toEqual(body.tools);
  } finally {
    await again.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('parallel calls go out together; answers in any order reach the model in the call order', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
    const first = mock.requests.length;
    mock.enqueue({ kind: 'output', items: [functionCallItem('call_a', 'plain_tool', { x: 'A' }), functionCallItem('call_b', 'plain_tool', { x: 'B' })] });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('two at once') });
    const calls = await waitForCalls(server, 2);
    expect(calls.map((call) => [call.id, call.params.callId])).toEqual([[0, 'call_a'], [1, 'call_b']]);
    answer(server, 1, { contentItems: [{ type: 'inputText', text: 'answer call_b' }], success: true });
    await server.waitForNotification('item/completed', (p) => p.item.id === 'call_b');
    answer(server, 0, { contentItems: [{ type: 'inputText', text: 'answer call_a' }], success: true });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
    const completedOrder = server.notifications('item/completed').filter((n) => n.params.item.type === 'dynamicToolCall').map((n) => n.params.item.id);
    expect(completedOrder).toEqual(['call_b', 'call_a']);
    expect(followUps(first)[1]).toEqual([
      { type: 'function_call', id: 'fc_call_a', name: 'plain_tool', arguments: '{"x":"A"}', call_id: 'call_a' },
      { type: 'function_call', id: 'fc_call_b', name: 'plain_tool', arguments: '{"x":"B"}', call_id: 'call_b' },
      { type: 'function_call_output', id: fcoId, call_id: 'call_a', output: 'answer call_a' },
      { type: 'function_call_output', id: fcoId, call_id: 'call_b', output: 'answer call_b' },
    ]);
    // The history records each item as its answer came, and the outputs after both, in the
    // model's order, as the reference does: a resume gives the model the same.
    const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    const recorded = records.flatMap((r) => {
      if (r.payload.type === 'item_completed' && r.payload.item.type === 'DynamicToolCall') return [`item ${r.payload.item.id}`];
      return r.payload.type === 'function_call_output' ? [`output ${r.payload.call_id}`] : [];
    });
    expect(recorded).toEqual(['item call_b', 'item call_a', 'output call_a', 'output call_b']);
  } finally {
    await server.close();
  }
});

test('images in answers reach the model prepared as prompt images are; the items keep the client\'s URLs', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
    const pixels = Buffer.alloc(3000 * 3000 * 3, 3);
    const large = (await sharp(pixels, { raw: { width: 3000, height: 3000, channels: 3 } }).png().toBuffer()).toString('base64');
    const jpeg = (await sharp(Buffer.alloc(20 * 10 * 3, 40), { raw: { width: 20, height: 10, channels: 3 } }).jpeg().toBuffer()).toString('base64');
    const answers: Array<[string, unknown[]]> = [
      ['large', [{ type: 'inputText', text: 'a' }, { type: 'inputImage', imageUrl: `data:image/png;base64,${large}` }]],
      ['upper', [{ type: 'inputImage', imageUrl: `DATA:image/png;base64,${jpeg}` }]],
      ['bad', [{ type: 'inputImage', imageUrl: 'data:image/png;base64,!!!' }]],
      ['text', [{ type: 'inputImage', imageUrl: 'data:text/plain;base64,aGVsbG8=' }]],
    ];
    const first = mock.requests.length;
    mock.enqueue({ kind: 'output', items: answers.map(([name]) => functionCallItem(`call_${name}`, 'plain_tool', { x: name })) });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('images') });
    const calls = await waitForCalls(server, answers.length);
    for (const [index, call] of calls.entries()) answer(server, call.id, { contentItems: answers[index]![1], success: true });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
    const items = server.notifications('item/completed').filter((n) => n.params.item.type === 'dynamicToolCall').map((n) => [n.params.item.id, n.params.item.contentItems]);
    expect(items).toEqual(answers.map(([name, contentItems]) => [`call_${name}`, contentItems]));
    const outputs = followUps(first)[1]!.filter((item) => (item as Message).type === 'function_call_output') as Message[];
    const unprocessable = [{ type: 'input_text', text: 'image content omitted because it could not be processed' }];
    // A JPEG is a JPEG whatever its URL said, sent as its own bytes; a large PNG is resized.
    expect(outputs).toEqual([
      { type: 'function_call_output', id: fcoId, call_id: 'call_large', output: [{ type: 'input_text', text: 'a' }, { type: 'input_image', image_url: expect.stringMatching(/^data:image\/png;base64,/), detail: 'high' }] },
      { type: 'function_call_output', id: fcoId, call_id: 'call_upper', output: [{ type: 'input_image', image_url: `data:image/jpeg;base64,${jpeg}`, detail: 'high' }] },
      { type: 'function_call_output', id: fcoId, call_id: 'call_bad', output: unprocessable },
      { type: 'function_call_output', id: fcoId, call_id: 'call_text', output: unprocessable },
    ]);
    const resized = (outputs[0]!.output as Message[])[1]!.image_url as string;
    const meta = await sharp(Buffer.from(resized.slice('data:image/png;base64,'.length), 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 1600]);
    // The history keeps the outputs as the model got them.
    const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    expect(records.filter((r) => r.payload.type === 'function_call_output').map((r) => r.payload.output)).toEqual(outputs.map((output) => output.output));
  } finally {
    await server.close();
  }
});

test('input steered while a call waits joins after the call\'s output, as the reference orders it', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
    const first = mock.requests.length;
    mock.enqueue({ kind: 'output', items: [functionCallItem('call_wait', 'plain_tool', { x: 'wait' })] });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('call it') });
    const [call] = await waitForCalls(server, 1);
    const mark = server.received.length;
    expect(await server.request('turn/steer', { threadId: thread.id, expectedTurnId: turn.id, input: text('meanwhile') })).toEqual({ turnId: turn.id });
    answer(server, call!.id, { contentItems: [{ type: 'inputText', text: 'waited' }], success: true });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
    const seen = server.received.slice(mark).flatMap((m) => ('method' in m ? (m.method === 'item/completed' ? [m.params.item.type] : []) : ['answer']));
    expect(seen).toEqual(['answer', 'dynamicToolCall', 'userMessage', 'agentMessage']);
    const input = (mock.requests[first + 1]!.body as { input: Message[] }).input;
    const asked = input.findIndex((item) => item.role === 'user' && (item.content as Message[])[0]!.text === 'call it');
    expect(input.slice(asked + 1)).toEqual([
      { type: 'function_call', id: 'fc_call_wait', name: 'plain_tool', arguments: '{"x":"wait"}', call_id: 'call_wait' },
      { type: 'function_call_output', id: fcoId, call_id: 'call_wait', output: 'waited' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'meanwhile' }] },
    ]);
  } finally {
    await server.close();
  }
});

test('answers the reference turns into failure texts, and answers it ignores', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
    const cases: Array<[string, (id: number) => string, unknown, boolean, unknown]> = [
      ['failed', (id) => JSON.stringify({ id, result: { contentItems: [{ type: 'inputText', text: 'it failed' }], success: false } }), [{ type: 'inputText', text: 'it failed' }], false, 'it failed'],
      ['error', (id) => JSON.stringify({ id, error: { code: -32000, message: 'client exploded' } }), [{ type: 'inputText', text: 'dynamic tool request failed' }], false, 'dynamic tool request failed'],
      ['invalid', (id) => JSON.stringify({ id, result: { contentItems: 5 } }), [{ type: 'inputText', text: 'dynamic tool response was invalid' }], false, 'dynamic tool response was invalid'],
      ['remote', (id) => JSON.stringify({ id, result: { contentItems: [{ type: 'inputImage', imageUrl: 'https://example.com/a.png' }], success: true } }),
        [{ type: 'inputText', text: 'remote image URLs are not supported; use an inline data URL instead' }], false, 'remote image URLs are not supported; use an inline data URL instead'],
      ['two', (id) => JSON.stringify({ id, result: { contentItems: [{ type: 'inputText', text: 'one' }, { type: 'inputImage', imageUrl: 'data:image/png;base64,AAAA' }], success: true } }),
        [{ type: 'inputText', text: 'one' }, { type: 'inputImage', imageUrl: 'data:image/png;base64,AAAA' }], true,
        // An image that does not decode is the reference's text in its place; the item keeps the client's URL.
        [{ type: 'input_text', text: 'one' }, { type: 'input_text', text: 'image content omitted because it could not be processed' }]],
    ];
    let asked = 0;
    for (const [name, reply, contentItems, success, output] of cases) {
      const before = mock.requests.length;
      mock.enqueue({ kind: 'output', items: [functionCallItem(`call_${name}`, 'plain_tool', { x: name })] });
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: text(name) });
      const [call] = (await waitForCalls(server, asked + 1)).slice(asked);
      asked += 1;
      server.sendText(reply(call!.id as number));
      // A second answer, and answers to ids never sent, change nothing and get no reply.
      server.sendText(reply(call!.id as number));
      server.sendText(JSON.stringify({ id: 9999, result: { contentItems: [], success: true } }));
      const done = await server.waitForNotification('item/completed', (p) => p.item.id === `call_${name}`);
      expect([done.item.status, done.item.contentItems, done.item.success]).toEqual([success ? 'completed' : 'failed', contentItems, success]);
      const ended = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
      expect(ended.turn.status).toBe('completed');
      expect(followUps(before)[1]!.at(-1)).toEqual({ type: 'function_call_output', id: fcoId, call_id: `call_${name}`, output });
    }
    // Nothing answered the stray answers.
    expect(server.received.filter((m) => !('method' in m) && (m.id === 9999 || typeof m.id === 'number' && m.id < 100 && 'error' in m))).toEqual([]);
  } finally {
    await server.close();
  }
});

test('an interrupt cancels the pending call: failed item, the cancellation for the model, the turn interrupted', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
    mock.enqueue({ kind: 'output', items: [functionCallItem('call_int', 'plain_tool', { x: 'int' })] });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('interrupt me') });
    await waitForCalls(server, 1);
    const mark = server.received.length;
    await server.request('turn/interrupt', { threadId: thread.id, turnId: turn.id });
    const ended = await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
    expect(ended.turn.status).toBe('interrupted');
    const after = server.received.slice(mark).map((m) => ('method' in m ? `${m.method as string}${m.params?.item ? ` ${m.params.item.status as string}` : ''}` : 'reply'));
    expect(after.filter((m) => !m.startsWith('thread/tokenUsage'))).toEqual(['item/completed failed', 'reply', 'thread/status/changed', 'turn/completed']);
    const failed = server.notifications('item/completed').find((n) => n.params.item.id === 'call_int')!.params.item;
    expect([failed.contentItems, failed.success]).toEqual([[], false]);
    // A late answer is dropped; the next turn replays the cancellation.
    answer(server, 0, { contentItems: [{ type: 'inputText', text: 'late answer' }], success: true });
    const next = mock.requests.length;
    const { turn: second } = await server.request('turn/start', { threadId: thread.id, input: text('next turn') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === second.id);
    const input = (mock.requests[next]!.body as { input: Message[] }).input;
    expect(input.filter((item) => item.type === 'function_call_output')).toEqual([
      { type: 'function_call_output', id: fcoId, call_id: 'call_int', output: 'dynamic tool call was cancelled before receiving a response' },
    ]);
  } finally {
    await server.close();
  }
});

test('bad tool specs are refused with the reference errors, and no thread is made', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const refusals = [];
    for (const dynamicTools of [
      [{ name: 'deferred_tool', description: 'd', inputSchema: SCHEMA, deferLoading: true }],
      [{ type: 'function', name: 'a', description: 'a', inputSchema: SCHEMA }, { type: 'function', name: 'a', description: 'b', inputSchema: SCHEMA }],
      [{ type: 'function', name: 'bad', description: 'b', inputSchema: 5 }],
      [{ type: 'function', name: '', description: 'e', inputSchema: SCHEMA }],
      [{ type: 'namespace', name: 'ns2', description: 'n', tools: [] }],
    ]) {
      refusals.push((await server.requestRaw('thread/start', { dynamicTools })).error);
    }
    expect(refusals).toEqual([
      { code: -32600, message: 'deferred dynamic tool must include a namespace: deferred_tool' },
      { code: -32600, message: 'duplicate dynamic tool name: a' },
      { code: -32600, message: 'dynamic tool input schema is not supported for bad: invalid type: number, expected struct JsonSchema' },
      { code: -32600, message: 'dynamic tool name must not be empty' },
      { code: -32600, message: 'dynamic tool namespace must contain at least one tool: ns2' },
    ]);
    expect((await server.request('thread/loaded/list', {})).data).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a fork of a loaded thread keeps its tools, offered and recorded', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    const { thread } = await server.request('thread/start', { dynamicTools: TOOLS });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('first') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
    const { thread: fork } = await server.request('thread/fork', { threadId: thread.id });
    const before = mock.requests.length;
    const { turn: next } = await server.request('turn/start', { threadId: fork.id, input: text('on the fork') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === next.id);
    expect((mock.requests[before]!.body as Message).tools).toEqual((mock.requests[before - 1]!.body as Message).tools);
    const records = readFileSync(fork.path as string, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    expect(records[0]!.payload.dynamic_tools.map((spec: Message) => spec.name)).toEqual(['plain_tool', 'my_ns']);
  } finally {
    await server.close();
  }
});
