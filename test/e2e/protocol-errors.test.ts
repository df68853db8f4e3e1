import { afterAll, beforeAll, expect, test } from 'vitest';
import { REFERENCE_CLIENT_METHODS } from '../../src/main/protocol/client-methods.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const invalid = (message: string) => ({ code: -32600, message });
const P = 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found';

test('the initialize response is the first line written and requests before it are refused', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, initialize: false });
  expect((await server.requestRaw('thread/loaded/list', {})).error).toEqual(invalid('Not initialized'));
  const reply = await server.requestRaw('initialize', { clientInfo: { name: 'probe', version: '1.2.3' } });
  expect(server.received[0]).toEqual({ id: 0, error: invalid('Not initialized') });
  expect(reply).toEqual({
    id: 1,
    result: {
      userAgent: expect.stringMatching(/^probe\/0\.171\.0 \(.+\) .+ \(probe; 1\.2\.3\) thread-host\/0\.1\.0$/),
      codexHome: server.home,
      platformFamily: 'unix',
      platformOs: 'linux',
    },
  });
  expect((await server.requestRaw('initialize', { clientInfo: { name: 'probe', version: '1' } })).error).toEqual(invalid('Already initialized'));
  expect(await server.close()).toBe(0);
});

test('an unknown method lists every method the reference knows, even before initialize', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, initialize: false });
  const expected = invalid(`Invalid request: unknown variant \`bogus/method\`, expected one of ${REFERENCE_CLIENT_METHODS.map((m) => `\`${m}\``).join(', ')}`);
  expect((await server.requestRaw('bogus/method', {})).error).toEqual(expected);
  expect(REFERENCE_CLIENT_METHODS.length).toBe(192);
  expect(await server.close()).toBe(0);
});

test('bad params get the reference texts and the connection keeps serving', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const cases: Array<[string, unknown, string]> = [
    ['thread/start', undefined, 'Invalid request: missing field `params`'],
    ['thread/start', null, 'Invalid request: missing field `params`'],
    ['thread/start', { model: 5 }, 'Invalid request: invalid type: integer `5`, expected a string'],
    ['thread/start', { ephemeral: 'yes' }, 'Invalid request: invalid type: string "yes", expected a boolean'],
    ['thread/start', { sandbox: 'bogus' }, 'Invalid request: unknown variant `bogus`, expected one of `read-only`, `workspace-write`, `danger-full-access`'],
    ['turn/start', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1', input: 'hello' }, 'Invalid request: invalid type: string "hello", expected a sequence'],
    ['turn/start', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1', input: [{ text: 'x' }] }, 'Invalid request: missing field `type`'],
    ['turn/start', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1' }, 'Invalid request: missing field `input`'],
    ['turn/start', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1', input: [] }, 'thread not found: 01a23644-4410-7392-9ce9-3a08921e3af1'],
    ['thread/loaded/list', { limit: -1 }, 'Invalid request: invalid value: integer `-1`, expected u32'],
    ['thread/loaded/list', { limit: 1.5 }, 'Invalid request: invalid type: floating point `1.5`, expected u32'],
    ['thread/loaded/list', { cursor: 5 }, 'Invalid request: invalid type: integer `5`, expected a string'],
    ['thread/read', { threadId: 5 }, 'Invalid request: invalid type: integer `5`, expected a string'],
    ['thread/read', { threadId: 'not-a-uuid' }, `invalid thread id: ${P} \`n\` at 1`],
    ['thread/read', { threadId: '../etc/passwd' }, `invalid thread id: ${P} \`.\` at 1`],
    ['thread/read', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1' }, 'thread not loaded: 01a23644-4410-7392-9ce9-3a08921e3af1'],
    ['thread/unsubscribe', {}, 'Invalid request: missing field `threadId`'],
    ['thread/unsubscribe', { threadId: '' }, 'invalid thread id: invalid length: expected length 32 for simple format, found 0'],
    ['thread/resume', { threadId: '/abs/path' }, `invalid session id: ${P} \`/\` at 1`],
    ['thread/resume', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1' }, 'no rollout found for thread id 01a23644-4410-7392-9ce9-3a08921e3af1'],
    ['thread/list', { sortDirection: 'bogus' }, 'Invalid request: unknown variant `bogus`, expected `asc` or `desc`'],
    ['turn/interrupt', { threadId: '01a23644-4410-7392-9ce9-3a08921e3af1' }, 'Invalid request: missing field `turnId`'],
  ];
  const replies = [];
  for (const [method, params] of cases) replies.push((await server.requestRaw(method, params)).error);
  expect(replies).toEqual(cases.map(([, , message]) => invalid(message)));
  expect(await server.request('thread/unsubscribe', { threadId: '01A23644-4410-7392-9CE9-3A08921E3AF1' })).toEqual({ status: 'notLoaded' });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'still works' }] });
  expect((await server.waitForNotification('turn/completed')).turn.status).toBe('completed');
  expect(await server.close()).toBe(0);
});

test('malformed lines, undecodable ids, stray responses and unknown notifications get no reply', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const lines = ['not json', '[1,2]', '{"id":99}', '{"id":1.5,"method":"thread/loaded/list","params":{}}', '{"id":null,"method":"thread/loaded/list","params":{}}', '{"id":7,"result":{}}', '{"method":"bogus/notification"}', '', '{"id":"x","error":{"code":1,"message":"m"}}'];
  for (const line of lines) server.sendText(line);
  const reply = await server.requestRaw('thread/loaded/list', {});
  expect(reply).toEqual({ id: 1, result: { data: [], nextCursor: null } });
  expect(server.received.slice(1)).toEqual([reply]);
  const stringId = await server.requestRaw('thread/loaded/list', { limit: null, cursor: null });
  expect(stringId.result).toEqual({ data: [], nextCursor: null });
  server.sendText('{"id":"req-a","method":"thread/loaded/list","params":{},"jsonrpc":"2.0"}');
  expect(await server.waitFor((m) => m.id === 'req-a')).toEqual({ id: 'req-a', result: { data: [], nextCursor: null } });
  expect(await server.close()).toBe(0);
});

test('thread/loaded/list pages by sorted id with an exclusive cursor', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const ids: string[] = [];
  for (let i = 0; i < 3; i += 1) ids.push((await server.request('thread/start', { ephemeral: i === 2 })).thread.id);
  const [a, b, c] = [...ids].sort() as [string, string, string];
  const pages = [
    await server.request('thread/loaded/list', {}),
    await server.request('thread/loaded/list', { limit: 1 }),
    await server.request('thread/loaded/list', { limit: 0 }),
    await server.request('thread/loaded/list', { limit: 2 }),
    await server.request('thread/loaded/list', { limit: 2, cursor: b }),
    await server.request('thread/loaded/list', { cursor: c }),
    await server.request('thread/loaded/list', { cursor: '00000000-0000-0000-0000-000000000000' }),
  ];
  expect(pages).toEqual([
    { data: [a, b, c], nextCursor: null },
    { data: [a], nextCursor: a },
    { data: [a], nextCursor: a },
    { data: [a, b], nextCursor: b },
    { data: [c], nextCursor: null },
    { data: [], nextCursor: null },
    { data: [a, b, c], nextCursor: null },
  ]);
  expect((await server.requestRaw('thread/loaded/list', { cursor: '../etc/passwd' })).error).toEqual(invalid('invalid cursor: ../etc/passwd'));
  expect(await server.close()).toBe(0);
});
