// Opt-in (`npm run test:interop`): configuration keys nobody reads, on the real reference,
// codex-cli 0.171.0, and on thread-host, with the same config.toml, `-c` overrides and mock
// model: the configWarning after initialize, what a thread/start with and without a `config`
// map of its own is told and whether its configWarning comes before the answer, the warning
// before a thread/fork's answer, then the
// notices of a cold resume after a restart, in order, with and without another model.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { messageItem } from '../../src/main/commands/mock-model/mock-model-server.js';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';

const reference = referenceAndMock();
const EXTRA = '\n[mcp_servers.x]\ncommand = "true"\nbogus = 1\nzeta = 2\n[bogus_table]\na = 1\n';
const FLAGS = ['-c', 'bogus_flag=1', '-c', 'mcp_servers.x.flagged=1'];
// Noise that either side sends on its own schedule.
const UNCOMPARED = new Set(['mcpServer/startupStatus/updated', 'remoteControl/status/changed']);

function startOn(side: Side, home: string, empty: string): Promise<TestServer> {
  return TestServer.start({
    home, keepConfig: true, args: FLAGS,
    env: { TMPDIR: join(home, 'tmpdir'), HOME: empty, RUST_BACKTRACE: '0' },
    ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}),
  });
}

/** The messages after `from` with the home and thread ids named, thread/started as its method. */
function seen(host: TestServer, from: number, home: string): unknown[] {
  const named = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(home, '<home>').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>'));
  return host.received.slice(from).flatMap((m: Message) => {
    if (!('method' in m)) return [['reply']];
    if (UNCOMPARED.has(m.method)) return [];
    if (m.method === 'thread/started') return [['thread/started']];
    if (m.method === 'thread/tokenUsage/updated') return [['thread/tokenUsage/updated']];
    return [[m.method, named(m.params)]];
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

async function scenario(side: Side): Promise<Record<string, unknown>> {
  const home = mkdtempSync(join(tmpdir(), 'ignored-settings-'));
  const empty = mkdtempSync(join(tmpdir(), 'ignored-settings-home-'));
  mkdirSync(join(home, 'tmpdir'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url) + EXTRA);
  const result: Record<string, unknown> = {};
  try {
    let host = await startOn(side, home, empty);
    await settle();
    result.initialize = seen(host, 1, home);
    for (const [name, params] of Object.entries({ plain: {}, configured: { config: { bogus_param: 1, 'mcp_servers.x.other': 2 } } })) {
      const from = host.received.length;
      await host.request('thread/start', params);
      await settle();
      const messages = seen(host, from, home) as unknown[][];
      // The reference's thread warning races its answer and thread/started: what it says is
      // compared, and that the configWarning comes before the answer.
      result[name] = {
        beforeReply: messages.slice(0, messages.findIndex((m) => m[0] === 'reply')).filter((m) => m[0] === 'configWarning'),
        warnings: messages.filter((m) => m[0] === 'warning'),
      };
    }
    const { thread } = await host.request('thread/start', {});
    reference.mock.enqueue({ kind: 'output', items: [messageItem('msg_ignored', 'Done')] });
    const { turn } = await host.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await host.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 30_000);
    const beforeFork = host.received.length;
    await host.request('thread/fork', { threadId: thread.id });
    await settle();
    const forked = seen(host, beforeFork, home) as unknown[][];
    // Only the warnings: thread-host's fork sends no deprecationNotice or token usage yet.
    result.fork = forked.filter((m) => m[0] === 'reply' || m[0] === 'warning' || m[0] === 'configWarning').slice(0, 2);
    await host.close();
    for (const [name, params] of Object.entries({ resume: {}, otherModel: { model: 'other-model' }, otherModelNoTurns: { model: 'other-model', excludeTurns: true } })) {
      host = await startOn(side, home, empty);
      await settle();
      const from = host.received.length;
      await host.request('thread/resume', { threadId: thread.id, ...params });
      await settle();
      result[name] = seen(host, from, home);
      await host.close();
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  }
  return result;
}

test('ignored configuration keys and a cold resume are told to the client as the reference tells them', async () => {
  const codex = await scenario('codex');
  const ours = await scenario('thread-host');
  const head = (n: number) => `Codex is ignoring ${n} unrecognized configuration settings. Check for typos or deprecated settings.`;
  const file = 'user (<home>/config.toml)';
  const hostWarning = `${head(5)}\n  session-flags: \`bogus_flag\` is ignored.\n  session-flags: \`mcp_servers.x.flagged\` is ignored.\n  ${file}: \`bogus_table\` is ignored.\n  ... and 2 more ignored settings.`;
  const threadWarning = `${head(7)}\n  session-flags: \`bogus_flag\` is ignored.\n  session-flags: \`bogus_param\` is ignored.\n  session-flags: \`mcp_servers.x.flagged\` is ignored.\n  ... and 4 more ignored settings.`;
  const deprecation = [
    'deprecationNotice',
    { summary: 'Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`.', details: null },
  ];
  const warning = ['warning', { threadId: '<id>', message: hostWarning }];
  const modelWarning = ['warning', { threadId: '<id>', message: 'This session was recorded with model `mock-model` but is resuming with `other-model`. Consider switching back to `mock-model` as it may affect Codex performance.' }];
  const afterWarnings = [['thread/status/changed', { threadId: '<id>', status: { type: 'idle' } }], ['reply'], ['thread/tokenUsage/updated'], ['thread/goal/cleared', { threadId: '<id>' }]];
  const expected = {
    initialize: [['configWarning', { summary: hostWarning, details: null }]],
    plain: { beforeReply: [], warnings: [warning] },
    configured: { beforeReply: [['configWarning', { summary: threadWarning, details: null }]], warnings: [['warning', { threadId: '<id>', message: threadWarning }]] },
    fork: [warning, ['reply']],
    resume: [deprecation, warning, ...afterWarnings],
    otherModel: [deprecation, warning, modelWarning, ...afterWarnings],
    otherModelNoTurns: [warning, modelWarning, ...afterWarnings],
  };
  expect({ codex, ours }).toEqual({ codex: expected, ours: expected });
}, 300_000);
