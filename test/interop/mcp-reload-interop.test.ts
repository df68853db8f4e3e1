// Opt-in (`npm run test:interop`): one config/mcpServer/reload script run against the real
// reference, codex-cli 0.171.0, and against thread-host, on the same mock model and the same
// stdio MCP fixture: a thread runs a turn, config.toml changes a's environment and adds b, the
// reload is answered, the startup statuses from the reload to the end of the next turn are
// compared (sorted: the servers start concurrently), then the next request's `mcp__` tools field
// by field; then bad params and a bad server table.
import { writeFileSync } from 'node:fs';
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

async function runScript(side: Side, home: string, fixture: FixtureDir): Promise<unknown> {
  const mock = reference.mock;
  const table = (name: string, tag: string, extra: string) =>
    `[mcp_servers.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([STDIO_SERVER])}\nenv = { MCP_FIXTURE_PID_FILE = ${JSON.stringify(fixture.startsFile)}, MCP_FIXTURE_TAG = "${tag}" }\n${extra}\n`;
  const write = (tables: string) => writeFileSync(join(home, 'config.toml'), `${mockModelConfig(mock.url)}\n${tables}`);
  write(table('a', 'a1', 'enabled_tools = ["echo"]'));
  const server = await startSide(side, home, reference.codex);
  const turn = async (threadId: string) => {
    const before = mock.requests.length;
    const { turn: started } = await server.request('turn/start', { threadId, input: text('go') });
    await server.waitForNotification('turn/completed', (p) => p.turn.id === started.id, 30_000);
    return (mock.requests[before]!.body as { tools: Message[] }).tools.filter((tool) => String(tool.name).startsWith('mcp__'));
  };
  const statuses = (from: number) =>
    server.received.slice(from).filter((m) => m.method === 'mcpServer/startupStatus/updated').map((m) => ({ ...m.params, threadId: typeof m.params.threadId }))
      .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  try {
    const { thread } = await server.request('thread/start', {});
    const before = await turn(thread.id);
    write(table('a', 'a2', 'enabled_tools = ["echo"]') + table('b', 'b1', 'enabled_tools = ["fail"]'));
    const mark = server.received.length;
    const answer = await server.requestRaw('config/mcpServer/reload', {});
    await waitUntil(() => statuses(mark).filter((s) => s.status === 'ready').length >= 2, 20_000);
    const after = await turn(thread.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const seen = statuses(mark);
    const badParams = (await server.requestRaw('config/mcpServer/reload', { x: 1 })).error;
    writeFileSync(join(home, 'config.toml'), `${mockModelConfig(mock.url)}\n[mcp_servers.z]\ncommand = 3\n`);
    const badConfig = (await server.requestRaw('config/mcpServer/reload', {})).error as Message;
    return { before, answer: answer.result, seen, after, badParams, badConfig: { ...badConfig, message: String(badConfig.message).split(home).join('<home>') } };
  } finally {
    expect(await server.close()).toBe(0);
  }
}

test('a reload script: the same answers, startup statuses and next tools on both', async () => {
  const runs = await runOnBothSides(runScript);
  expect(runs['thread-host']).toEqual(runs.codex);
  // What the reference did, so two runs that both saw nothing cannot pass.
  const status = (name: string, value: string) => ({ threadId: 'string', name, environmentId: null, status: value, error: null, failureReason: null });
  const names = (tools: unknown) => (tools as Message[]).map((tool) => [tool.name, tool.tools.map((inner: Message) => inner.name)]);
  const codex = runs.codex as Message;
  expect({ ...codex, before: names(codex.before), after: names(codex.after) }).toEqual({
    before: [['mcp__a', ['echo']]],
    answer: {},
    seen: [status('a', 'ready'), status('a', 'starting'), status('b', 'ready'), status('b', 'starting')],
    after: [['mcp__a', ['echo']], ['mcp__b', ['fail']]],
    badParams: { code: -32600, message: 'Invalid request: invalid type: map, expected unit' },
    badConfig: { code: -32603, message: 'failed to refresh MCP servers: <home>/config.toml:15:11: invalid type: integer `3`, expected a string' },
  });
}, 120_000);
