// MCP servers from config.toml, end to end against a real host, the mock model calling their
// tools and a real MCP server over stdio (test/fixtures/mcp/stdio-server.mjs, written with the
// SDK): the tools offered under `mcp__<server>`, the `mcpToolCall` items, what the model is
// given back, the refusal under approval policy never, an elicitation approval, a call past
// the server's tool timeout, image blocks prepared for the model, one process for many threads,
// the rollout's record and the item read back after a restart, and the servers a thread's
// `config` map gives it. Expected shapes are the reference's (codex-cli 0.171.0, probed:
// docs/tools.md).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { FixtureDir, mockAndFixture } from '../helpers/mcp-fixtures.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));

const scene = mockAndFixture();

/** Root config naming the fixture server `fx`, with `extra` keys in its table. */
function mcpConfig(extra = ''): string {
  const args = JSON.stringify([STDIO_SERVER]);
  const env = `{ MCP_FIXTURE_PID_FILE = ${JSON.stringify(scene.fixture.startsFile)} }`;
  return `mcp_servers = { fx = { command = ${JSON.stringify(process.execPath)}, args = ${args}, env = ${env}${extra} } }`;
}

const text = (value: string) => [{ type: 'text', text: value }];
const wall = expect.stringMatching(/^Wall time: \d+\.\d{4} seconds\nOutput:$/);

/** Runs a turn whose model calls `tool` of `fx` with `args`, then says "Done"; returns the item, the model's output and the turn. */
async function callTurn(server: TestServer, threadId: string, callId: string, tool: string, args: unknown): Promise<{ item: Message; output: unknown; turnId: string }> {
  scene.mock.enqueue({ kind: 'output', items: [functionCallItem(callId, tool, args, 'mcp__fx')] });
  scene.mock.enqueue({ kind: 'output', items: [messageItem(`msg_${callId}`, 'Done')] });
  const before = scene.mock.requests.length;
  const { turn } = await server.request('turn/start', { threadId, input: text(`call ${tool}`) });
  const done = await server.waitForNotification('item/completed', (p) => p.item.id === callId, 20_000);
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  const input = (scene.mock.requests[before + 1]!.body as { input: Message[] }).input;
  return { item: done.item, output: input.find((i) => i.type === 'function_call_output' && i.call_id === callId)!.output, turnId: turn.id };
}

const item = (callId: string, tool: string, args: unknown, rest: Message): Message => ({
  type: 'mcpToolCall', id: callId, server: 'fx', environmentId: null, tool, arguments: args,
  appContext: null, mcpAppUi: null, pluginId: null, startedAtMs: expect.any(Number), completedAtMs: expect.any(Number), durationMs: expect.any(Number), ...rest,
});

test('a server tool is offered, called, answered, recorded and read back as the reference does', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-mcp-'));
  const starts = scene.fixture.starts().length;
  try {
    const server = await TestServer.start({ modelUrl: scene.mock.url, home, rootConfig: mcpConfig(', enabled_tools = ["echo", "fail", "hang", "progress"], tool_timeout_sec = 1') });
    const { thread } = await server.request('thread/start', {});
    const first = scene.mock.requests.length;
    const echo = await callTurn(server, thread.id, 'call_echo', 'echo', { text: 'hello' });
    expect(echo.item).toEqual(item('call_echo', 'echo', { text: 'hello' }, {
      status: 'completed', readOnlyHint: true, result: { content: [{ type: 'text', text: 'hello' }], structuredContent: null, _meta: null }, error: null,
    }));
    expect(echo.output).toEqual([{ type: 'input_text', text: wall }, { type: 'input_text', text: 'hello' }]);
    // Offered under the server's namespace, sorted, `$schema` left out, through enabled_tools.
    const tools = (scene.mock.requests[first]!.body as { tools: Message[] }).tools;
    // After the command tools and the resource tools, as the reference orders them.
    expect(tools.map((tool) => tool.name)).toEqual(['exec_command', 'write_stdin', 'list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource', 'mcp__fx']);
    expect(tools.slice(5)).toEqual([{
      type: 'namespace', name: 'mcp__fx', description: 'Tools in the mcp__fx namespace.',
      tools: [
        { type: 'function', name: 'echo', description: 'Returns its text', strict: false, parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
        { type: 'function', name: 'fail', description: 'Fails', strict: false, parameters: { type: 'object', properties: {} } },
        { type: 'function', name: 'hang', description: 'Never answers', strict: false, parameters: { type: 'object', properties: {} } },
        { type: 'function', name: 'progress', description: 'Reports progress, then answers', strict: false, parameters: { type: 'object', properties: {} } },
      ],
    }]);

    // Not read-only, under approval policy never: refused, not run.
    const refused = await callTurn(server, thread.id, 'call_fail', 'fail', {});
    const NEVER = 'MCP tool call requires approval, but approval policy is never';
    expect(refused.item).toEqual(item('call_fail', 'fail', {}, { status: 'failed', readOnlyHint: null, result: null, error: { message: NEVER }, durationMs: 0 }));
    expect(refused.output).toEqual([{ type: 'input_text', text: wall }, { type: 'input_text', text: NEVER }]);

    // A name the server does not have: no item, the reference's text.
    scene.mock.enqueue({ kind: 'output', items: [functionCallItem('call_nope', 'nope', {}, 'mcp__fx')] });
    const before = scene.mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('nope') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
    const input = (scene.mock.requests[before + 1]!.body as { input: Message[] }).input;
    expect(input.at(-1)).toEqual({ type: 'function_call_output', id: expect.stringMatching(/^fco_/), call_id: 'call_nope', output: 'unsupported call: mcp__fxnope' });

    // The rollout's record of the call, in the reference's core spelling.
    const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
    const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
    const recorded = records.filter((r) => r.payload.item?.type === 'McpToolCall').map((r) => r.payload.item);
    expect(recorded).toEqual([
      { type: 'McpToolCall', id: 'call_echo', server: 'fx', tool: 'echo', arguments: { text: 'hello' }, readOnlyHint: true, status: 'completed', result: { content: [{ type: 'text', text: 'hello' }] }, duration: { secs: 0, nanos: expect.any(Number) } },
      { type: 'McpToolCall', id: 'call_fail', server: 'fx', tool: 'fail', arguments: {}, status: 'failed', error: { message: NEVER }, duration: { secs: 0, nanos: 0 } },
    ]);
    const status = await server.request('mcpServerStatus/list', {});
    expect(status.data.map((s: Message) => [s.name, Object.keys(s.tools).sort(), s.resources, s.authStatus])).toEqual([
      ['fx', ['echo', 'fail', 'hang', 'progress'], [{ mimeType: 'text/plain', name: 'readme', uri: 'fixture://readme' }], 'unsupported'],
    ]);
    const live = (await server.request('thread/read', { threadId: thread.id, includeTurns: true })).thread.turns;
    await server.close();
    // The session's one process is gone with the host.
    expect(scene.fixture.starts().length).toBe(starts + 1);

    const again = await TestServer.start({ modelUrl: scene.mock.url, home, rootConfig: mcpConfig(', tool_timeout_sec = 1, default_tools_approval_mode = "approve"') });
    try {
      const resumed = await again.request('thread/resume', { threadId: thread.id });
      expect(resumed.thread.turns).toEqual(live);
      // Past the tool timeout: the reference's error, the item failed, the turn goes on.
      const hang = await callTurn(again, thread.id, 'call_hang', 'hang', {});
      const TIMEOUT = 'tool call error: tool call failed for `fx/hang`\n\nCaused by:\n    timed out awaiting tools/call after 1000ms';
      expect(hang.item).toEqual(item('call_hang', 'hang', {}, { status: 'failed', readOnlyHint: null, result: null, error: { message: TIMEOUT } }));
    } finally {
      await again.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('many threads with the same server share one process; an approval asks the client', async () => {
  const starts = scene.fixture.starts().length;
  const server = await TestServer.start({ modelUrl: scene.mock.url, rootConfig: mcpConfig() });
  try {
    const threads: string[] = [];
    for (let i = 0; i < 5; i += 1) threads.push((await server.request('thread/start', { approvalPolicy: 'on-request' })).thread.id);
    for (const [i, threadId] of threads.entries()) await callTurn(server, threadId, `call_${i}`, 'echo', { text: `t${i}` });
    expect(scene.fixture.starts().length).toBe(starts + 1);

    // On request, a tool that is not read-only is asked of the client; declined, it does not run.
    scene.mock.enqueue({ kind: 'output', items: [functionCallItem('call_ask', 'fail', {}, 'mcp__fx')] });
    const { turn } = await server.request('turn/start', { threadId: threads[0], input: text('ask') });
    const asked = await server.waitFor((m) => m.method === 'mcpServer/elicitation/request' && 'id' in m, 20_000);
    expect(asked.params).toEqual({
      threadId: threads[0], turnId: turn.id, serverName: 'fx', environmentId: null, mode: 'form',
      _meta: { codex_approval_kind: 'mcp_tool_call', persist: ['session', 'always'], tool_name: 'fail', tool_description: 'Fails', tool_params: {}, tool_params_display: [] },
      message: 'Allow the fx MCP server to run tool "fail"?',
      requestedSchema: { type: 'object', properties: {} },
    });
    server.sendText(JSON.stringify({ id: asked.id, result: { action: 'decline', content: null, _meta: null } }));
    const resolved = await server.waitForNotification('serverRequest/resolved', () => true, 20_000);
    expect(resolved).toEqual({ threadId: threads[0], requestId: asked.id });
    const done = await server.waitForNotification('item/completed', (p) => p.item.id === 'call_ask', 20_000);
    expect([done.item.status, done.item.error]).toEqual(['failed', { message: 'user rejected MCP tool call' }]);
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  } finally {
    await server.close();
  }
});

test('a client calls a server tool and reads a resource directly, as the reference answers', async () => {
  const server = await TestServer.start({ modelUrl: scene.mock.url, rootConfig: mcpConfig() });
  try {
    const { thread } = await server.request('thread/start', {});
    const call = (tool: string, args?: unknown) => server.requestRaw('mcpServer/tool/call', { threadId: thread.id, server: 'fx', tool, ...(args === undefined ? {} : { arguments: args }) });
    expect([(await call('echo', { text: 'direct' })).result, (await call('fail', {})).result]).toEqual([
      { content: [{ type: 'text', text: 'direct' }] },
      { content: [{ type: 'text', text: 'it failed' }], isError: true },
    ]);
    const read = (uri: string) => server.requestRaw('mcpServer/resource/read', { threadId: thread.id, server: 'fx', uri });
    expect((await read('fixture://readme')).result).toEqual({ contents: [{ uri: 'fixture://readme', text: 'read me' }], originCallId: null });
    expect((await read('fixture://missing')).error).toEqual({ code: -32602, message: 'MCP error -32602: Resource fixture://missing not found' });
    // No item and no notification for either.
    expect(server.notifications().filter((n) => n.method === 'item/started')).toEqual([]);
  } finally {
    await server.close();
  }
});

test('the resource tools list and read the servers’ resources as the reference answers', async () => {
  const server = await TestServer.start({ modelUrl: scene.mock.url, rootConfig: mcpConfig() });
  try {
    const { thread } = await server.request('thread/start', {});
    const calls: Array<[string, string, unknown]> = [
      ['call_all', 'list_mcp_resources', {}],
      ['call_fx', 'list_mcp_resources', { server: 'fx' }],
      ['call_tpl', 'list_mcp_resource_templates', {}],
      ['call_read', 'read_mcp_resource', { server: 'fx', uri: 'fixture://readme' }],
      ['call_missing', 'read_mcp_resource', { server: 'fx', uri: 'fixture://missing' }],
      ['call_nope', 'list_mcp_resources', { server: 'nope' }],
    ];
    for (const [callId, name, args] of calls) scene.mock.enqueue({ kind: 'output', items: [functionCallItem(callId, name, args)] });
    scene.mock.enqueue({ kind: 'output', items: [messageItem('msg_res', 'Done')] });
    const before = scene.mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('resources') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
    const input = (scene.mock.requests.at(-1)!.body as { input: Message[] }).input;
    const outputs = input.filter((item) => item.type === 'function_call_output').map((item) => [item.call_id, item.output]);
    expect(outputs).toEqual([
      ['call_all', '{"resources":[{"server":"fx","uri":"fixture://readme","name":"readme","mimeType":"text/plain"}]}'],
      ['call_fx', '{"server":"fx","resources":[{"server":"fx","uri":"fixture://readme","name":"readme","mimeType":"text/plain"}]}'],
      ['call_tpl', '{"resourceTemplates":[]}'],
      ['call_read', '{"server":"fx","uri":"fixture://readme","contents":[{"uri":"fixture://readme","text":"read me"}]}'],
      ['call_missing', 'resources/read failed: resources/read failed for `fx` (fixture://missing): Mcp error: -32602: MCP error -32602: Resource fixture://missing not found'],
      ['call_nope', "unknown MCP server 'nope' for the selected environment"],
    ]);
    expect(scene.mock.requests.length).toBe(before + calls.length + 1);
    const items = server.notifications('item/completed').filter((n) => n.params.item.type === 'mcpToolCall').map((n) => [n.params.item.server, n.params.item.tool, n.params.item.status]);
    expect(items).toEqual([
      ['codex', 'list_mcp_resources', 'completed'], ['fx', 'list_mcp_resources', 'completed'], ['codex', 'list_mcp_resource_templates', 'completed'],
      ['fx', 'read_mcp_resource', 'completed'], ['fx', 'read_mcp_resource', 'failed'], ['nope', 'list_mcp_resources', 'failed'],
    ]);
  } finally {
    await server.close();
  }
});

/** The fixture server as a table, its starts recorded under `tag`. */
const taggedServer = (dir: FixtureDir, tag: string) => ({ command: process.execPath, args: [STDIO_SERVER], env: { MCP_FIXTURE_PID_FILE: dir.startsFile, MCP_FIXTURE_TAG: tag } });
const taggedInline = (dir: FixtureDir, tag: string) => `{ command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(STDIO_SERVER)}], env = { MCP_FIXTURE_PID_FILE = ${JSON.stringify(dir.startsFile)}, MCP_FIXTURE_TAG = "${tag}" } }`;

/** Starts a thread with `config`, runs a turn, and returns the MCP namespaces its model was offered. */
async function offeredMcp(host: TestServer, config: Record<string, unknown>): Promise<string[]> {
  const { thread } = await host.request('thread/start', { config });
  scene.mock.enqueue({ kind: 'output', items: [messageItem(`msg_${thread.id}`, 'Done')] });
  const before = scene.mock.requests.length;
  const { turn } = await host.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
  await host.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  const tools = (scene.mock.requests[before]!.body as { tools: Message[] }).tools;
  return tools.map((tool) => tool.name as string).filter((name) => name.startsWith('mcp__'));
}

test("a thread's mcp_servers add to config.toml's, merge into them, and take the -c servers' place", async () => {
  // Its own scratch dir, so the starts it counts are its own.
  const dir = new FixtureDir();
  const host = await TestServer.start({ modelUrl: scene.mock.url, rootConfig: `mcp_servers.a = ${taggedInline(dir, 'a')}`, args: ['-c', `mcp_servers.k2=${taggedInline(dir, 'k2')}`] });
  try {
    expect(await offeredMcp(host, {})).toEqual(['mcp__a', 'mcp__k2']);
    // A whole table: config.toml's `a` stays, `k` joins it, the `-c` server `k2` is gone.
    expect(await offeredMcp(host, { mcp_servers: { k: taggedServer(dir, 'k') } })).toEqual(['mcp__a', 'mcp__k']);
    // Dotted keys assign beside the `-c` server.
    expect(await offeredMcp(host, { 'mcp_servers.k.command': process.execPath, 'mcp_servers.k.args': [STDIO_SERVER], 'mcp_servers.k.env': taggedServer(dir, 'k').env })).toEqual(['mcp__a', 'mcp__k', 'mcp__k2']);
    // A partial table for `a` merges into config.toml's, its env too: the pid file stays, the tag changes.
    expect(await offeredMcp(host, { model: 'mock-model', mcp_servers: { a: { env: { MCP_FIXTURE_TAG: 'merged-a' } } } })).toEqual(['mcp__a']);
    expect(dir.starts().map(([, tag]) => tag).sort()).toEqual(['a', 'k', 'k2', 'merged-a']);
  } finally {
    await host.close();
    dir.remove();
  }
});

test("a resume takes a thread's config once nobody is subscribed, as the reference does; a bad or null value is worded as it words it", async () => {
  const dir = new FixtureDir();
  const host = await TestServer.start({ modelUrl: scene.mock.url, rootConfig: `mcp_servers.a = ${taggedInline(dir, 'a')}` });
  try {
    const { thread } = await host.request('thread/start', {});
    const turnTools = async () => {
      scene.mock.enqueue({ kind: 'output', items: [messageItem(`msg_${scene.mock.requests.length}`, 'Done')] });
      const before = scene.mock.requests.length;
      const { turn } = await host.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
      await host.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
      const body = scene.mock.requests[before]!.body as { tools: Message[]; model: string };
      return [body.model, body.tools.map((tool) => tool.name as string).filter((name) => name.startsWith('mcp__'))];
    };
    expect(await turnTools()).toEqual(['mock-model', ['mcp__a']]);
    const config = { mcp_servers: { k: taggedServer(dir, 'k') } };
    // Subscribed: ignored, a bad value too.
    expect((await host.request('thread/resume', { threadId: thread.id, model: 'other', config: { model: 3 } })).model).toBe('mock-model');
    expect(await turnTools()).toEqual(['mock-model', ['mcp__a']]);
    await host.request('thread/unsubscribe', { threadId: thread.id });
    const mark = host.received.length;
    expect((await host.request('thread/resume', { threadId: thread.id, model: 'other', config })).model).toBe('other');
    const unloads = host.received.slice(mark).filter((m) => m.method === 'thread/closed' || m.method === 'thread/status/changed').map((m) => m.params.status?.type ?? m.method);
    expect(unloads).toEqual(['notLoaded', 'idle']);
    expect(await turnTools()).toEqual(['other', ['mcp__a', 'mcp__k']]);
    const errors = [];
    for (const bad of [{ 'mcp_servers.k.env.A': 3 }, { mcp_servers: null }, { model: null }]) errors.push((await host.requestRaw('thread/start', { config: bad })).error);
    expect(errors).toEqual([
      { code: -32600, message: 'failed to load configuration: invalid type: integer `3`, expected a string\nin `mcp_servers.k.env.A`\n' },
      { code: -32600, message: 'failed to load configuration: invalid type: string "", expected a map\nin `mcp_servers`\n' },
      { code: -32600, message: 'No models are available. Set `model` explicitly or check your model catalog configuration.' },
    ]);
  } finally {
    await host.close();
    dir.remove();
  }
});

test('image blocks of a result reach the model prepared as a prompt image is; the item keeps them as sent', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-mcp-images-'));
  try {
    const png = join(home, 'large.png');
    writeFileSync(png, await sharp(Buffer.alloc(3000 * 3000 * 3, 5), { raw: { width: 3000, height: 3000, channels: 3 } }).png().toBuffer());
    const env = `{ MCP_FIXTURE_PID_FILE = ${JSON.stringify(scene.fixture.startsFile)}, MCP_FIXTURE_IMAGE = ${JSON.stringify(png)} }`;
    const rootConfig = `mcp_servers = { fx = { command = ${JSON.stringify(process.execPath)}, args = ${JSON.stringify([STDIO_SERVER])}, env = ${env}, enabled_tools = ["images", "bad_image"] } }`;
    const server = await TestServer.start({ modelUrl: scene.mock.url, home, rootConfig });
    try {
      const { thread } = await server.request('thread/start', {});
      const called = await callTurn(server, thread.id, 'call_images', 'images', {});
      const data = readFileSync(png).toString('base64');
      expect(called.item.result.content).toEqual([
        { type: 'text', text: 'before' },
        { type: 'image', data, mimeType: 'image/png' },
        { type: 'image', data, mimeType: 'image/jpeg' },
        { type: 'image', data: 'aGVsbG8=', mimeType: 'text/plain' },
        { type: 'text', text: 'after' },
      ]);
      const output = called.output as Message[];
      const resized = expect.stringMatching(/^data:image\/png;base64,/);
      // A PNG labelled JPEG is a PNG; text labelled an image type is no image.
      expect(output).toEqual([
        { type: 'input_text', text: wall }, { type: 'input_text', text: 'before' },
        { type: 'input_image', image_url: resized, detail: 'high' }, { type: 'input_image', image_url: resized, detail: 'high' },
        { type: 'input_text', text: 'image content omitted because it could not be processed' }, { type: 'input_text', text: 'after' },
      ]);
      for (const part of output.filter((p) => p.type === 'input_image')) {
        const meta = await sharp(Buffer.from((part.image_url as string).slice('data:image/png;base64,'.length), 'base64')).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 1600]);
      }
      // The history keeps the output as the model got it.
      const path = (await server.request('thread/read', { threadId: thread.id })).thread.path as string;
      const records = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
      expect(records.find((r) => r.payload.type === 'function_call_output')!.payload.output).toEqual(output);

      // Each line of a many-line cause is indented under "Caused by:", as the reference's are.
      const bad = await callTurn(server, thread.id, 'call_bad', 'bad_image', {});
      const cause = ['Mcp error: -32602: MCP error -32602: Invalid tools/call result: [', '  {', '    "code": "custom",', '    "path": [', '      "content",', '      0,', '      "data"', '    ],', '    "message": "Invalid Base64 string"', '  }', ']'];
      expect(bad.item.error).toEqual({ message: `tool call error: tool call failed for \`fx/bad_image\`\n\nCaused by:\n${cause.map((line) => `    ${line}`).join('\n')}` });
    } finally {
      await server.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
