// Opt-in (`npm run test:interop`): which MCP servers a thread gets from its `config` map, on the
// real reference, codex-cli 0.171.0, and on thread-host, with the same config.toml server `a`,
// `-c` server `k2` and mock model: the `mcp__` namespaces each thread's model is offered, and the
// model it asks for. The reference may send a turn before its servers have started, so the
// second turn's request is the one compared. Then bad values and JSON nulls in `config` (the
// whole error), and thread/resume of a loaded thread with and without subscribers, over
// WebSocket with two clients.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';
import { WsServer, type WsClient } from '../helpers/ws-server.js';

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

/** The same script on the reference, then on thread-host. */
async function bothSides(script: (side: Side) => Promise<Record<string, unknown>>): Promise<{ codex: Record<string, unknown>; ours: Record<string, unknown> }> {
  const codex = await script('codex');
  return { codex, ours: await script('thread-host') };
}

/** A home for one side's server, with its TMPDIR and an empty HOME (no login-shell locks). */
function scratchHome(): { home: string; env: Record<string, string>; remove: () => void } {
  const home = mkdtempSync(join(tmpdir(), 'mcp-thread-config-'));
  const empty = mkdtempSync(join(tmpdir(), 'mcp-thread-config-home-'));
  mkdirSync(join(home, 'tmpdir'));
  return {
    home,
    env: { TMPDIR: join(home, 'tmpdir'), HOME: empty, RUST_BACKTRACE: '0' },
    remove: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(empty, { recursive: true, force: true });
    },
  };
}

async function offeredBySide(side: Side): Promise<Record<string, unknown>> {
  const { home, env, remove } = scratchHome();
  const mock = reference.mock;
  const host = await TestServer.start({
    home, modelUrl: mock.url, rootConfig: `mcp_servers.a = ${inline}`, args: ['-c', `mcp_servers.k2=${inline}`],
    env,
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
    remove();
  }
  return seen;
}

test("a thread's config merges over config.toml's MCP servers, and replaces the -c ones, as the reference does", async () => {
  const { codex, ours } = await bothSides(offeredBySide);
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

const BAD_CONFIGS: Record<string, Record<string, unknown>> = {
  wrongType: { model: 3 },
  badEnum: { approval_policy: 'bogus' },
  granularAsString: { approval_policy: 'granular' },
  badSandbox: { sandbox_mode: 'bogus' },
  serverCommand: { mcp_servers: { k: { command: 3 } } },
  serverTimeout: { mcp_servers: { k: { command: 'x', startup_timeout_sec: 'slow' } } },
  dottedServerCommand: { 'mcp_servers.k.command': 3 },
  serversNotATable: { mcp_servers: 3 },
  serverWithoutTransport: { mcp_servers: { k: {} } },
  serverEnvEntry: { mcp_servers: { k: { command: 'x', env: { A: 3 } } } },
  serverArgs: { mcp_servers: { k: { command: 'x', args: 'a' } } },
  serverArgsItem: { mcp_servers: { k: { command: 'x', args: ['a', 2] } } },
  providerKey: { 'model_providers.mock_provider.base_url': 3 },
  unknownProvider: { model_provider: 'nope' },
  numberKey: { thread_unload_delay_secs: 'x' },
  nullString: { model: null },
  nullTable: { mcp_servers: null },
  nullNumber: { thread_unload_delay_secs: null },
  nullEnum: { approval_policy: null },
  nullProvider: { model_provider: null },
  nullInsideServer: { mcp_servers: { k: { command: 'x', args: null } } },
  nullServerTimeout: { mcp_servers: { k: { command: 'x', startup_timeout_sec: null } } },
  nullEnvValue: { mcp_servers: { k: { command: process.execPath, args: [STDIO_SERVER], env: { A: null } } } },
  nullUnknownKey: { some_unknown_key: null, some_table: { x: null } },
};

async function answersBySide(side: Side): Promise<Record<string, unknown>> {
  const { home, env, remove } = scratchHome();
  const host = await TestServer.start({
    home, modelUrl: reference.mock.url,
    env,
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}),
  });
  const seen: Record<string, unknown> = {};
  try {
    for (const [name, config] of Object.entries(BAD_CONFIGS)) {
      const answer = await host.requestRaw('thread/start', { config });
      seen[name] = answer.error ?? 'started';
    }
  } finally {
    await host.close();
    remove();
  }
  return seen;
}

test("a bad value or a null in a thread's config is answered as the reference answers it", async () => {
  const { codex, ours } = await bothSides(answersBySide);
  const bad = (message: string) => ({ code: -32600, message: `failed to load configuration: ${message}` });
  const at = (problem: string, key: string) => bad(`${problem}\nin \`${key}\`\n`);
  const APPROVALS = 'expected one of `untrusted`, `on-failure`, `on-request`, `granular`, `never`';
  const expected = {
    wrongType: at('invalid type: integer `3`, expected a string', 'model'),
    badEnum: at(`unknown variant \`bogus\`, ${APPROVALS}`, 'approval_policy'),
    granularAsString: at('invalid type: unit variant, expected newtype variant', 'approval_policy'),
    badSandbox: at('unknown variant `bogus`, expected one of `read-only`, `workspace-write`, `danger-full-access`', 'sandbox_mode'),
    serverCommand: at('invalid type: integer `3`, expected a string', 'mcp_servers.k.command'),
    serverTimeout: at('invalid type: string "slow", expected f64', 'mcp_servers.k.startup_timeout_sec'),
    dottedServerCommand: at('invalid type: integer `3`, expected a string', 'mcp_servers.k.command'),
    serversNotATable: at('invalid type: integer `3`, expected a map', 'mcp_servers'),
    serverWithoutTransport: at('invalid transport', 'mcp_servers.k'),
    serverEnvEntry: at('invalid type: integer `3`, expected a string', 'mcp_servers.k.env.A'),
    serverArgs: at('invalid type: string "a", expected a sequence', 'mcp_servers.k.args'),
    serverArgsItem: at('invalid type: integer `2`, expected a string', 'mcp_servers.k.args'),
    providerKey: at('invalid type: integer `3`, expected a string', 'model_providers.mock_provider.base_url'),
    unknownProvider: bad('Model provider `nope` not found'),
    numberKey: at('invalid type: string "x", expected u64', 'thread_unload_delay_secs'),
    nullString: { code: -32600, message: 'No models are available. Set `model` explicitly or check your model catalog configuration.' },
    nullTable: at('invalid type: string "", expected a map', 'mcp_servers'),
    nullNumber: at('invalid type: string "", expected u64', 'thread_unload_delay_secs'),
    nullEnum: at(`unknown variant \`\`, ${APPROVALS}`, 'approval_policy'),
    nullProvider: bad('Model provider `` not found'),
    nullInsideServer: at('invalid type: string "", expected a sequence', 'mcp_servers.k.args'),
    nullServerTimeout: at('invalid type: string "", expected f64', 'mcp_servers.k.startup_timeout_sec'),
    nullEnvValue: 'started',
    nullUnknownKey: 'started',
  };
  expect({ codex, ours }).toEqual({ codex: expected, ours: expected });
}, 120_000);

/** Starts a thread whose model is offered config.toml's server `a`, with one turn; returns its id. */
async function threadWithATurn(client: WsClient): Promise<string> {
  const { thread } = await client.request('thread/start', {});
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await offeredInTurn(client, thread.id);
  return thread.id;
}

/** Runs a turn; the model it asked for and the `mcp__` namespaces it was offered. */
async function offeredInTurn(client: WsClient, threadId: string): Promise<{ model: string; mcp: string[] }> {
  const mock = reference.mock;
  mock.enqueue({ kind: 'output', items: [messageItem(`msg_${mock.requests.length}`, 'Done')] });
  const before = mock.requests.length;
  const { turn } = await client.request('turn/start', { threadId, input: [{ type: 'text', text: 'hi' }] });
  await client.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
  const body = mock.requests[before]!.body as { tools: Message[]; model: string };
  return { model: body.model, mcp: body.tools.map((tool) => String(tool.name)).filter((tool) => tool.startsWith('mcp__')) };
}

async function resumesBySide(side: Side): Promise<Record<string, unknown>> {
  const { home, env, remove } = scratchHome();
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, `mcp_servers.a = ${inline}`));
  const host = await WsServer.start({
    home, keepConfig: true, env,
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'ws://127.0.0.1:0'] } : {}),
  });
  const [a, b] = [await host.connect(), await host.connect()];
  const settings = { model: 'resumed-model', config: { mcp_servers: { k: server } } };
  const seen: Record<string, unknown> = {};
  const resume = async (name: string, threadId: string, params: Record<string, unknown>) => {
    const mark = a.received.length;
    const answer = await a.requestRaw('thread/resume', { threadId, ...params });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const unloads = a.received.slice(mark).filter((m: Message) => m.method === 'thread/closed' || (m.method === 'thread/status/changed' && m.params.status.type === 'notLoaded'));
    const loaded = ((await a.request('thread/loaded/list', {})).data as string[]).includes(threadId);
    seen[name] = {
      answer: answer.error ?? { model: answer.result.model, turns: answer.result.thread.turns.length },
      unloads: unloads.map((m: Message) => m.method === 'thread/closed' ? 'closed' : 'notLoaded'),
      loaded,
      next: loaded ? await offeredInTurn(a, threadId) : null,
    };
  };
  try {
    // Still subscribed: the settings, even a bad config, change nothing.
    const subscribed = await threadWithATurn(a);
    await resume('stillSubscribed', subscribed, settings);
    await resume('stillSubscribedBadConfig', subscribed, { config: { model: 3 } });
    // Another client subscribed: the same.
    const shared = await threadWithATurn(a);
    await b.request('thread/resume', { threadId: shared });
    await a.request('thread/unsubscribe', { threadId: shared });
    await resume('otherSubscribed', shared, settings);
    // Nobody subscribed: a bare resume attaches; one with settings loads the thread again with them.
    const alone = await threadWithATurn(a);
    await a.request('thread/unsubscribe', { threadId: alone });
    await resume('bareAfterUnsubscribe', alone, {});
    await a.request('thread/unsubscribe', { threadId: alone });
    await resume('settingsAfterUnsubscribe', alone, settings);
    await a.request('thread/unsubscribe', { threadId: alone });
    await resume('emptyConfigAfterUnsubscribe', alone, { config: {} });
    await a.request('thread/unsubscribe', { threadId: alone });
    await resume('badConfigAfterUnsubscribe', alone, { config: { model: 3 } });
  } finally {
    await host.stop();
    remove();
  }
  return seen;
}

test('thread/resume of a loaded thread takes its settings only when nobody is subscribed, as the reference does', async () => {
  const { codex, ours } = await bothSides(resumesBySide);
  const kept = (turns: number) => ({ answer: { model: 'mock-model', turns }, unloads: [], loaded: true, next: { model: 'mock-model', mcp: ['mcp__a'] } });
  const expected = {
    stillSubscribed: kept(1),
    stillSubscribedBadConfig: kept(2),
    otherSubscribed: kept(1),
    bareAfterUnsubscribe: kept(1),
    settingsAfterUnsubscribe: { answer: { model: 'resumed-model', turns: 2 }, unloads: ['notLoaded'], loaded: true, next: { model: 'resumed-model', mcp: ['mcp__a', 'mcp__k'] } },
    // Loaded again with the request's settings only: the model its turns recorded, the server `a` alone.
    emptyConfigAfterUnsubscribe: { answer: { model: 'resumed-model', turns: 3 }, unloads: ['notLoaded'], loaded: true, next: { model: 'resumed-model', mcp: ['mcp__a'] } },
    badConfigAfterUnsubscribe: {
      answer: { code: -32600, message: 'failed to load configuration: invalid type: integer `3`, expected a string\nin `model`\n' },
      unloads: ['notLoaded'], loaded: false, next: null,
    },
  };
  expect({ codex, ours }).toEqual({ codex: expected, ours: expected });
}, 300_000);
