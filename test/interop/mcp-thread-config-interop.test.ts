// Opt-in (`npm run test:interop`): which MCP servers a thread gets from its `config` map, on the
// real reference, codex-cli 0.171.0, and on thread-host, with the same config.toml server `a`,
// `-c` server `k2` and mock model: the `mcp__` namespaces each thread's model is offered, and the
// model it asks for. The reference may send a turn before its servers have started, so the
// second turn's request is the one compared.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';

const reference = referenceAndMock();
const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url));
const server = { command: process.execPath, args: [STDIO_SERVER] };
const inline = `{ command = ${JSON.stringify(process.execPath)}, args = [${JSON.stringify(STDIO_SERVER)}] }`;

const CONFIGS: Record<string, Record<string, unknown>> = {
  none: {},
  wholeTable: { mcp_servers: { k: server } },
  dotted: { 'mcp_servers.k.command': server.command, 'mcp_servers.k.args': server.args },
  partialTableForFileServer: { mcp_servers: { a: { env: { UNUSED: '1' } } } },
  scalarBesideTable: { model: 'other-model', mcp_servers: { k: server } },
};

async function offeredBySide(side: Side): Promise<Record<string, unknown>> {
  const home = mkdtempSync(join(tmpdir(), 'mcp-thread-config-'));
  const empty = mkdtempSync(join(tmpdir(), 'mcp-thread-config-home-'));
  mkdirSync(join(home, 'tmpdir'));
  const mock = reference.mock;
  const host = await TestServer.start({
    home, modelUrl: mock.url, rootConfig: `mcp_servers.a = ${inline}`, args: ['-c', `mcp_servers.k2=${inline}`],
    env: { TMPDIR: join(home, 'tmpdir'), HOME: empty, RUST_BACKTRACE: '0' },
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}),
  });
  const seen: Record<string, unknown> = {};
  try {
    for (const [name, config] of Object.entries(CONFIGS)) {
      const { thread } = await host.request('thread/start', { config });
      let body: { tools: Message[]; model: string } | undefined;
      for (const n of [1, 2]) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        mock.enqueue({ kind: 'output', items: [messageItem(`msg_${name}_${n}`, 'Done')] });
        const before = mock.requests.length;
        const { turn } = await host.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
        await host.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
        body = mock.requests[before]!.body as { tools: Message[]; model: string };
      }
      seen[name] = { model: body!.model, mcp: body!.tools.map((tool) => String(tool.name)).filter((tool) => tool.startsWith('mcp__')) };
    }
    // A partial table for the `-c` server replaces it within the layer: no transport left.
    const partial = await host.requestRaw('thread/start', { config: { mcp_servers: { k2: { env: { UNUSED: '1' } } } } });
    seen.partialTableForFlagServer = partial.error ? 'invalid transport' : 'started';
  } finally {
    await host.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
  return seen;
}

test("a thread's config merges over config.toml's MCP servers, and replaces the -c ones, as the reference does", async () => {
  const codex = await offeredBySide('codex');
  const ours = await offeredBySide('thread-host');
  const expected = {
    none: { model: 'mock-model', mcp: ['mcp__a', 'mcp__k2'] },
    wholeTable: { model: 'mock-model', mcp: ['mcp__a', 'mcp__k'] },
    dotted: { model: 'mock-model', mcp: ['mcp__a', 'mcp__k', 'mcp__k2'] },
    partialTableForFileServer: { model: 'mock-model', mcp: ['mcp__a'] },
    scalarBesideTable: { model: 'other-model', mcp: ['mcp__a', 'mcp__k'] },
    partialTableForFlagServer: 'invalid transport',
  };
  expect({ codex, ours }).toEqual({ codex: expected, ours: expected });
}, 300_000);
