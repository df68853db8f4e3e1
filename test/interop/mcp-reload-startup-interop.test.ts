// Opt-in (`npm run test:interop`): what config/mcpServer/reload starts, run against codex-cli
// 0.171.0 and thread-host on the same mock model and stdio MCP fixture. A thread started with
// no servers gains a (the fixture) and c (a script not written yet) without running a turn;
// then the script is written, b (with a key neither knows) is added and the config reloaded
// again: a is announced ready, c (kept, failed) starts again, b starts. The startup statuses
// after each reload (sorted: the servers start concurrently), `mcpServerStatus/list` and the
// next turn's `mcp__` tools are compared field by field.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { waitUntil } from '../../src/main/wait-until.js';
import type { FixtureDir } from '../helpers/mcp-fixtures.js';
import { referenceAndMock } from './reference-and-mock.js';
import { runOnBothSides, startSide, type Side } from './reload-sides.js';
import { mockModelConfig, type Message } from '../helpers/test-server.js';

const reference = referenceAndMock();
const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const text = (value: string) => [{ type: 'text', text: value }];

async function runScript(side: Side, home: string, fixture: FixtureDir): Promise<Message> {
  const mock = reference.mock;
  const script = join(home, 'later.sh');
  const table = (name: string, extra: string, command = process.execPath) =>
    `[mcp_servers.${name}]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify([STDIO_SERVER])}\nenv = { MCP_FIXTURE_PID_FILE = ${JSON.stringify(fixture.startsFile)}, MCP_FIXTURE_TAG = "${name}" }\n${extra}\n`;
  const write = (tables: string) => writeFileSync(join(home, 'config.toml'), `${mockModelConfig(mock.url)}\n${tables}`);
  write('');
  const server = await startSide(side, home, reference.codex);
  const statuses = (from: number) =>
    server.received.slice(from).filter((m) => m.method === 'mcpServer/startupStatus/updated').map((m) => ({ ...m.params, threadId: typeof m.params.threadId }))
      .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  const settled = (from: number, count: number) => waitUntil(() => statuses(from).filter((s) => s.status !== 'starting').length >= count, 20_000);
  const listed = async () => (await server.request('mcpServerStatus/list', {})).data.map((s: Message) => ({ ...s, tools: Object.keys(s.tools).sort() }));
  const reload = async (count: number) => {
    const mark = server.received.length;
    const answer = (await server.requestRaw('config/mcpServer/reload', {})).result;
    await settled(mark, count);
    // Nothing more comes once every server has settled.
    await new Promise((resolve) => setTimeout(resolve, 700));
    return { answer, statuses: statuses(mark), list: await listed() };
  };
  try {
    const { thread } = await server.request('thread/start', {});
    write(table('a', 'enabled_tools = ["echo"]') + table('c', 'enabled_tools = ["echo"]', script));
    const gained = await reload(2);
    writeFileSync(script, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$@"\n`);
    chmodSync(script, 0o755);
    write(table('a', 'enabled_tools = ["echo"]') + table('c', 'enabled_tools = ["echo"]', script) + table('b', 'enabled_tools = ["fail"]\nbogus = 1\n[mcp_servers.b.tools.fail]\nzzz = 1'));
    const retried = await reload(3);
    const before = mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('go') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
    const tools = (mock.requests[before]!.body as { tools: Message[] }).tools
      .filter((tool) => String(tool.name).startsWith('mcp__'))
      .map((tool) => [tool.name, tool.tools.map((inner: Message) => inner.name)]);
    return { gained, retried, tools };
  } finally {
    expect(await server.close()).toBe(0);
  }
}

test('a reload starts a thread’s new servers at once and a kept one that had failed again', async () => {
  const runs = await runOnBothSides(runScript);
  expect(runs['thread-host']).toEqual(runs.codex);
  // What the reference did, so two runs that both saw nothing cannot pass.
  const status = (name: string, value: string, error: string | null = null) => ({ threadId: 'string', name, environmentId: null, status: value, error, failureReason: null });
  const codex = runs.codex;
  const brief = (list: Message[]) => list.map((s) => [s.name, s.tools, s.toolsError]);
  expect({ ...codex, gained: { ...codex.gained, list: brief(codex.gained.list) }, retried: { ...codex.retried, list: brief(codex.retried.list) } }).toEqual({
    gained: {
      answer: {},
      statuses: [status('a', 'ready'), status('a', 'starting'), status('c', 'failed', 'MCP client for `c` failed to start: MCP startup failed: No such file or directory (os error 2)'), status('c', 'starting')],
      list: [['a', ['echo'], null], ['c', [], 'MCP startup failed: No such file or directory (os error 2)']],
    },
    retried: {
      answer: {},
      statuses: [status('a', 'ready'), status('b', 'ready'), status('b', 'starting'), status('c', 'ready'), status('c', 'starting')],
      list: [['a', ['echo'], null], ['b', ['fail'], null], ['c', ['echo'], null]],
    },
    tools: [['mcp__a', ['echo']], ['mcp__b', ['fail']], ['mcp__c', ['echo']]],
  });
}, 120_000);
