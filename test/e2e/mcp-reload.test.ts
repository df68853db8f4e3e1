// config/mcpServer/reload end to end: config.toml edited under a running host, real stdio MCP
// servers (test/fixtures/mcp/stdio-server.mjs, each start recorded with its tag), and the mock
// model's recorded requests showing the tool set before and after. Expected answers,
// notifications and tool sets are the reference's (codex-cli 0.171.0, probed: docs/tools.md).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { functionCallItem, messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { waitUntil } from '../../src/main/wait-until.js';
import { alive, mockAndFixture } from '../helpers/mcp-fixtures.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const text = (value: string) => [{ type: 'text', text: value }];

const scene = mockAndFixture();

/** A `[mcp_servers.<name>]` table launching the fixture with tag `tag`, then `extra` lines. */
function serverTable(name: string, tag: string, extra = ''): string {
  const env = `{ MCP_FIXTURE_PID_FILE = ${JSON.stringify(scene.fixture.startsFile)}, MCP_FIXTURE_TAG = "${tag}" }`;
  return `[mcp_servers.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([STDIO_SERVER])}\nenv = ${env}\n${extra}\n`;
}

const writeConfig = (home: string, tables: string) => writeFileSync(join(home, 'config.toml'), `${mockModelConfig(scene.mock.url)}\n${tables}`);

/** The `mcp__` namespaces of a model request: `[namespace, tool names]`. */
function offered(request: { body: unknown }): unknown[] {
  return (request.body as { tools: Message[] }).tools
    .filter((tool) => tool.type === 'namespace' && String(tool.name).startsWith('mcp__'))
    .map((tool) => [tool.name, tool.tools.map((inner: Message) => inner.name)]);
}

/** Runs a turn answered by the default reply; returns the namespaces its requests offered. */
async function turnTools(server: TestServer, threadId: string): Promise<unknown[]> {
  const before = scene.mock.requests.length;
  const { turn } = await server.request('turn/start', { threadId, input: text('go') });
  await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
  return scene.mock.requests.slice(before).map(offered);
}

/** The startup statuses received since `mark`, as `[thread, name, status, error]`, sorted. */
function statusesSince(server: TestServer, mark: number, names: Record<string, string>): unknown[] {
  return server.received
    .slice(mark)
    .filter((m) => m.method === 'mcpServer/startupStatus/updated')
    .map((m) => [names[m.params.threadId] ?? m.params.threadId, m.params.name, m.params.status, m.params.error, m.params.environmentId, m.params.failureReason])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

const tagsOf = () => scene.fixture.starts().map(([, tag]) => tag);
const pidsOf = (tag: string) => scene.fixture.starts().filter(([, t]) => t === tag).map(([pid]) => pid);

test('a reload gives loaded threads the new servers: added, changed, kept, disabled, removed', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-mcp-reload-'));
  writeConfig(home, serverTable('a', 'a1', 'enabled_tools = ["echo"]'));
  const host = await TestServer.start({ home, keepConfig: true });
  try {
    const t1 = (await host.request('thread/start', {})).thread.id;
    const t2 = (await host.request('thread/start', {})).thread.id;
    const names = { [t1]: 't1', [t2]: 't2' };
    expect(await turnTools(host, t1)).toEqual([[['mcp__a', ['echo']]]]);
    expect(await turnTools(host, t2)).toEqual([[['mcp__a', ['echo']]]]);
    expect(tagsOf()).toEqual(['a1']);

    // Params are the unit: none, null or {} only.
    for (const params of [undefined, null, {}]) expect((await host.requestRaw('config/mcpServer/reload', params)).result).toEqual({});
    const refusals = [];
    for (const params of [{ x: 1 }, [], 'str', 3]) refusals.push((await host.requestRaw('config/mcpServer/reload', params)).error);
    expect(refusals).toEqual([
      { code: -32600, message: 'Invalid request: invalid type: map, expected unit' },
      { code: -32600, message: 'Invalid request: invalid type: sequence, expected unit' },
      { code: -32600, message: 'Invalid request: invalid type: string "str", expected unit' },
      { code: -32600, message: 'Invalid request: invalid type: integer `3`, expected unit' },
    ]);

    // a's environment changes, b is added: both start at once for the threads that had started
    // theirs, one process each for both threads; a1's process stops.
    const [a1] = pidsOf('a1');
    writeConfig(home, serverTable('a', 'a2', 'enabled_tools = ["echo"]') + serverTable('b', 'b1', 'enabled_tools = ["fail"]'));
    let mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => statusesSince(host, mark, names).filter((s) => (s as string[])[2] === 'ready').length === 4, 20_000);
    expect(statusesSince(host, mark, names)).toEqual([
      ['t1', 'a', 'ready', null, null, null], ['t1', 'a', 'starting', null, null, null],
      ['t1', 'b', 'ready', null, null, null], ['t1', 'b', 'starting', null, null, null],
      ['t2', 'a', 'ready', null, null, null], ['t2', 'a', 'starting', null, null, null],
      ['t2', 'b', 'ready', null, null, null], ['t2', 'b', 'starting', null, null, null],
    ]);
    await waitUntil(() => !alive(a1!), 10_000);
    expect([alive(a1!), tagsOf().sort()]).toEqual([false, ['a1', 'a2', 'b1']]);
    const listed = (await host.request('mcpServerStatus/list', {})).data.map((s: Message) => [s.name, Object.keys(s.tools).sort()]);
    expect(listed).toEqual([['a', ['echo']], ['b', ['fail']]]);
    expect(await turnTools(host, t1)).toEqual([[['mcp__a', ['echo']], ['mcp__b', ['fail']]]]);

    // Nothing changed: the kept servers are announced ready again, nothing starts.
    mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => statusesSince(host, mark, names).length === 4, 10_000);
    expect(statusesSince(host, mark, names)).toEqual([
      ['t1', 'a', 'ready', null, null, null], ['t1', 'b', 'ready', null, null, null],
      ['t2', 'a', 'ready', null, null, null], ['t2', 'b', 'ready', null, null, null],
    ]);

    // Only a's tool filter changes: same process, new tools on the next request.
    writeConfig(home, serverTable('a', 'a2', 'enabled_tools = ["echo", "hang"]') + serverTable('b', 'b1', 'enabled_tools = ["fail"]'));
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    expect(await turnTools(host, t2)).toEqual([[['mcp__a', ['echo', 'hang']], ['mcp__b', ['fail']]]]);
    expect(tagsOf().sort()).toEqual(['a1', 'a2', 'b1']);

    // b disabled, a removed: nothing announced, both processes stop, no MCP tools offered.
    const running = [...pidsOf('a2'), ...pidsOf('b1')];
    writeConfig(home, serverTable('b', 'b1', 'enabled_tools = ["fail"]\nenabled = false'));
    mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => running.every((pid) => !alive(pid)), 10_000);
    expect(running.map(alive)).toEqual([false, false]);
    const before = scene.mock.requests.length;
    expect(await turnTools(host, t1)).toEqual([[]]);
    expect((scene.mock.requests[before]!.body as { tools: Message[] }).tools.map((tool) => tool.name)).toEqual(['exec_command', 'write_stdin']);
    expect(statusesSince(host, mark, names)).toEqual([]);
  } finally {
    expect(await host.close()).toBe(0);
    rmSync(home, { recursive: true, force: true });
  }
});

test('a thread’s own mcp_servers stay over the reloaded ones; a running turn gets them on its next request', async () => {
  const starts = scene.fixture.starts().length;
  const host = await TestServer.start({ modelUrl: scene.mock.url, rootConfig: '' });
  try {
    writeConfig(host.home, serverTable('a', 'a3', 'enabled_tools = ["echo", "hang"]\ntool_timeout_sec = 2\ndefault_tools_approval_mode = "approve"'));
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    const own = { command: process.execPath, args: [STDIO_SERVER], env: { MCP_FIXTURE_PID_FILE: scene.fixture.startsFile, MCP_FIXTURE_TAG: 'o1' }, enabled_tools: ['echo'] };
    const thread = (await host.request('thread/start', { config: { 'mcp_servers.o': own } })).thread.id;
    expect(await turnTools(host, thread)).toEqual([[['mcp__a', ['echo', 'hang']], ['mcp__o', ['echo']]]]);

    // While the model's call of `hang` waits, c is added: the turn's next request offers it.
    scene.mock.enqueue({ kind: 'output', items: [functionCallItem('call_hang', 'hang', {}, 'mcp__a')] });
    scene.mock.enqueue({ kind: 'output', items: [messageItem('msg_hang', 'Done')] });
    const before = scene.mock.requests.length;
    const { turn } = await host.request('turn/start', { threadId: thread, input: text('hang') });
    await host.waitForNotification('item/started', (p) => p.item.id === 'call_hang', 20_000);
    writeConfig(host.home, serverTable('a', 'a3', 'enabled_tools = ["echo", "hang"]\ntool_timeout_sec = 2\ndefault_tools_approval_mode = "approve"') + serverTable('c', 'c1', 'enabled_tools = ["echo"]'));
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await host.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
    expect(scene.mock.requests.slice(before).map(offered)).toEqual([
      [['mcp__a', ['echo', 'hang']], ['mcp__o', ['echo']]],
      [['mcp__a', ['echo', 'hang']], ['mcp__c', ['echo']], ['mcp__o', ['echo']]],
    ]);
    expect(scene.fixture.starts().slice(starts).map(([, tag]) => tag).sort()).toEqual(['a3', 'c1', 'o1']);
  } finally {
    expect(await host.close()).toBe(0);
  }
});

test('threads that have run no turn start their servers at the reload, a thread with none gains them', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-mcp-reload-'));
  writeConfig(home, '');
  const host = await TestServer.start({ home, keepConfig: true });
  const starts = scene.fixture.starts().length;
  const tags = () => scene.fixture.starts().slice(starts).map(([, tag]) => tag);
  try {
    const t0 = (await host.request('thread/start', {})).thread.id;
    let names: Record<string, string> = { [t0]: 't0' };
    // t0 had no servers: a starts at once, with no turn.
    writeConfig(home, serverTable('a', 'a5', 'enabled_tools = ["echo"]'));
    let mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => statusesSince(host, mark, names).length === 2, 20_000);
    expect(statusesSince(host, mark, names)).toEqual([['t0', 'a', 'ready', null, null, null], ['t0', 'a', 'starting', null, null, null]]);
    expect(tags()).toEqual(['a5']);

    // t1 starts with a and runs no turn: the reload gives it the session t0 runs, ready.
    const t1 = (await host.request('thread/start', {})).thread.id;
    names = { [t0]: 't0', [t1]: 't1' };
    mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => statusesSince(host, mark, names).length === 2, 10_000);
    expect(statusesSince(host, mark, names)).toEqual([['t0', 'a', 'ready', null, null, null], ['t1', 'a', 'ready', null, null, null]]);

    // a's launch changes: one new process for both, started at once; the old one stops.
    const [a5] = pidsOf('a5');
    writeConfig(home, serverTable('a', 'a6', 'enabled_tools = ["echo"]'));
    mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => statusesSince(host, mark, names).length === 4, 20_000);
    expect(statusesSince(host, mark, names)).toEqual([
      ['t0', 'a', 'ready', null, null, null], ['t0', 'a', 'starting', null, null, null],
      ['t1', 'a', 'ready', null, null, null], ['t1', 'a', 'starting', null, null, null],
    ]);
    await waitUntil(() => !alive(a5!), 10_000);
    expect([alive(a5!), tags()]).toEqual([false, ['a5', 'a6']]);
    const listed = (await host.request('mcpServerStatus/list', {})).data.map((s: Message) => [s.name, Object.keys(s.tools), s.serverInfo, s.toolsError]);
    expect(listed).toEqual([['a', ['echo'], { name: 'stdio-fixture', title: null, version: '1.0.0', description: null, icons: null, websiteUrl: null }, null]]);
  } finally {
    expect(await host.close()).toBe(0);
    rmSync(home, { recursive: true, force: true });
  }
});

test('a kept server whose start failed starts again at the reload, and not before; unknown keys are ignored', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-mcp-reload-'));
  const script = join(home, 'later.sh');
  const table = serverTable('c', 'c1', 'enabled_tools = ["echo"]\nbogus = 1\n[mcp_servers.c.tools.echo]\nzzz = 2').replace(JSON.stringify(process.execPath), JSON.stringify(script));
  writeConfig(home, table);
  const host = await TestServer.start({ home, keepConfig: true });
  const starts = scene.fixture.starts().length;
  try {
    const thread = (await host.request('thread/start', {})).thread.id;
    const names = { [thread]: 't' };
    let mark = host.received.length;
    expect(await turnTools(host, thread)).toEqual([[]]);
    const failed = `MCP client for \`c\` failed to start: MCP startup failed: No such file or directory (os error 2)`;
    expect(statusesSince(host, mark, names)).toEqual([['t', 'c', 'failed', failed, null, null], ['t', 'c', 'starting', null, null, null]]);
    const status = async () => (await host.request('mcpServerStatus/list', {})).data.map((s: Message) => [s.name, Object.keys(s.tools), s.toolsError]);
    expect(await status()).toEqual([['c', [], 'MCP startup failed: No such file or directory (os error 2)']]);

    // The script appears; nothing tries the server again until the reload does.
    writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(statusesSince(host, mark, names).length).toBe(2);
    mark = host.received.length;
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    await waitUntil(() => statusesSince(host, mark, names).length === 2, 20_000);
    expect(statusesSince(host, mark, names)).toEqual([['t', 'c', 'ready', null, null, null], ['t', 'c', 'starting', null, null, null]]);
    expect(await status()).toEqual([['c', ['echo'], null]]);
    expect(await turnTools(host, thread)).toEqual([[['mcp__c', ['echo']]]]);
    expect(scene.fixture.starts().slice(starts).map(([, tag]) => tag)).toEqual(['c1']);
  } finally {
    expect(await host.close()).toBe(0);
    rmSync(home, { recursive: true, force: true });
  }
});

test('a config.toml that does not parse, or a bad server table, is refused and changes nothing', async () => {
  const host = await TestServer.start({ modelUrl: scene.mock.url });
  const path = join(host.home, 'config.toml');
  const lines = mockModelConfig(scene.mock.url).split('\n').length;
  try {
    // With no thread loaded a bad server table is not looked at, as the reference does not.
    writeConfig(host.home, '[mcp_servers.z]\ncommand = 3\n');
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    writeConfig(host.home, serverTable('a', 'a4', 'enabled_tools = ["echo"]'));
    expect((await host.requestRaw('config/mcpServer/reload', {})).result).toEqual({});
    const thread = (await host.request('thread/start', {})).thread.id;
    const answers = [];
    for (const body of ['[mcp_servers.z]\nargs = ["x"]\n', '[mcp_servers.z]\ncommand = 3\n', '[mcp_servers.z]\ncommand = "x"\nstartup_timeout_sec = -1\n', '[mcp_servers.a\n']) {
      writeConfig(host.home, body);
      answers.push((await host.requestRaw('config/mcpServer/reload', {})).error);
    }
    expect(answers).toEqual([
      { code: -32603, message: `failed to refresh MCP servers: ${path}:${lines + 1}:1: invalid transport` },
      { code: -32603, message: `failed to refresh MCP servers: ${path}:${lines + 2}:11: invalid type: integer \`3\`, expected a string` },
      { code: -32603, message: `failed to refresh MCP servers: ${path}:${lines + 1}:1: cannot convert float seconds to Duration: value is negative` },
      { code: -32603, message: `failed to refresh MCP servers: ${path}:${lines + 1}:15: unclosed table, expected \`]\`` },
    ]);
    // The servers of the last good reload are still the thread's.
    expect(await turnTools(host, thread)).toEqual([[['mcp__a', ['echo']]]]);
  } finally {
    expect(await host.close()).toBe(0);
  }
});
