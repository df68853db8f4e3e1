// Configuration keys nobody reads, as codex 0.171.0 reports them (probed; the interop side is
// test/interop/ignored-settings-interop.test.ts): a `configWarning` after initialize, another
// before a thread/start whose `config` adds keys (the first three named, the rest counted), a thread `warning` for every start and cold
// resume; and a cold resume's notices in the reference's order, the model change warned of.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const HEAD = 'Codex is ignoring';
const TAIL = 'Check for typos or deprecated settings.';

/** Every message after `from`, notifications by method and params, replies by id; MCP startup statuses left out. */
function sequence(server: TestServer, from: number): unknown[] {
  return server.received
    .slice(from)
    .filter((m: Message) => m.method !== 'mcpServer/startupStatus/updated')
    .map((m: Message) => ('method' in m ? [m.method, m.params] : ['reply', m.id]));
}

function homeWith(extra: string): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-ignored-'));
  writeFileSync(join(home, 'config.toml'), `${mockModelConfig(mock.url, 'bogus_top = 1')}\n[mcp_servers.x]\ncommand = "true"\n${extra}`);
  return home;
}

test('unknown keys are warned of after initialize, before a start whose config adds some, and to each thread', async () => {
  const home = homeWith('bogus = 1\nexperimental_environment = "local"\n[bogus_table]\na = 1\n');
  const file = join(home, 'config.toml');
  const server = await TestServer.start({ home, keepConfig: true, args: ['-c', 'mcp_servers.x.zeta=1', '-c', 'history_mode="paginated"'] });
  try {
    const hostWarning =
      `${HEAD} 4 unrecognized configuration settings. ${TAIL}\n  session-flags: \`mcp_servers.x.zeta\` is ignored.\n` +
      `  user (${file}): \`bogus_table\` is ignored.\n  user (${file}): \`bogus_top\` is ignored.\n  ... and 1 more ignored settings.`;
    await server.waitForNotification('configWarning');
    expect(sequence(server, 1)).toEqual([['configWarning', { summary: hostWarning, details: null }]]);

    let from = server.received.length;
    const plain = (await server.request('thread/start', {})).thread;
    await server.waitForNotification('warning', (p) => p.threadId === plain.id);
    expect(sequence(server, from)).toEqual([
      ['reply', 1],
      ['thread/started', expect.objectContaining({ thread: expect.objectContaining({ id: plain.id }) })],
      ['warning', { threadId: plain.id, message: hostWarning }],
    ]);

    from = server.received.length;
    const configured = (await server.request('thread/start', { config: { 'mcp_servers.x.other': 2, zz: { a: 1 }, model: 'mock-model' } })).thread;
    await server.waitForNotification('warning', (p) => p.threadId === configured.id);
    const threadWarning =
      `${HEAD} 6 unrecognized configuration settings. ${TAIL}\n  session-flags: \`mcp_servers.x.other\` is ignored.\n  session-flags: \`mcp_servers.x.zeta\` is ignored.\n  session-flags: \`zz\` is ignored.\n` +
      '  ... and 3 more ignored settings.';
    expect(sequence(server, from)).toEqual([
      ['configWarning', { summary: threadWarning, details: null }],
      ['reply', 2],
      ['thread/started', expect.objectContaining({ thread: expect.objectContaining({ id: configured.id }) })],
      ['warning', { threadId: configured.id, message: threadWarning }],
    ]);
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test('a fork is warned before its answer; a cold resume sends its deprecation notice, its warnings, idle, the answer, the token usage and the cleared goal, in that order', async () => {
  const home = homeWith('bogus = 1\n');
  const file = join(home, 'config.toml');
  const ignored = `${HEAD} 2 unrecognized configuration settings. ${TAIL}\n  user (${file}): \`bogus_top\` is ignored.\n  user (${file}): \`mcp_servers.x.bogus\` is ignored.`;
  try {
    const first = await TestServer.start({ home, keepConfig: true });
    const { thread } = await first.request('thread/start', {});
    const { turn } = await first.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hi' }] });
    await first.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
    const beforeFork = first.received.length;
    const fork = (await first.request('thread/fork', { threadId: thread.id })).thread;
    expect(sequence(first, beforeFork).slice(0, 2)).toEqual([['warning', { threadId: fork.id, message: ignored }], ['reply', 3]]);
    await first.close();
    const deprecation = {
      summary: 'Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`.',
      details: null,
    };
    const usage = ['thread/tokenUsage/updated', expect.objectContaining({ threadId: thread.id, turnId: turn.id })];
    const cases: Array<[Record<string, unknown>, unknown[]]> = [
      [{}, [['deprecationNotice', deprecation], ['warning', { threadId: thread.id, message: ignored }]]],
      [{ model: 'other-model', excludeTurns: true }, [
        ['warning', { threadId: thread.id, message: ignored }],
        ['warning', {
          threadId: thread.id,
          message: 'This session was recorded with model `mock-model` but is resuming with `other-model`. Consider switching back to `mock-model` as it may affect Codex performance.',
        }],
      ]],
    ];
    for (const [params, notices] of cases) {
      const server = await TestServer.start({ home, keepConfig: true });
      try {
        await server.waitForNotification('configWarning');
        const from = server.received.length;
        await server.request('thread/resume', { threadId: thread.id, ...params });
        await server.waitForNotification('thread/goal/cleared');
        expect(sequence(server, from)).toEqual([
          ...notices,
          ['thread/status/changed', { threadId: thread.id, status: { type: 'idle' } }],
          ['reply', 1],
          usage,
          ['thread/goal/cleared', { threadId: thread.id }],
        ]);
      } finally {
        await server.close();
      }
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
