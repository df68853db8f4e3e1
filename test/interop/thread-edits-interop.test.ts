// Opt-in (`npm run test:interop`): archive, unarchive and delete on a home shared with the real
// reference, codex-cli 0.171.0, in both directions: what one side did, the other sees.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

type Side = 'thread-host' | 'codex';

const reference = referenceAndMock();
let home: string;

function newHome(): string {
  home = mkdtempSync(join(tmpdir(), 'thread-host-interop-edits-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  return home;
}

function startSide(side: Side): Promise<TestServer> {
  return TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
}

async function threadWithTurn(server: TestServer, text: string): Promise<Message> {
  const { thread } = await server.request('thread/start', {});
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id, 20_000);
  return thread;
}

const listedIds = async (server: TestServer, archived: boolean) => (await server.request('thread/list', { archived })).data.map((t: Message) => t.id);

for (const [archiver, reader] of [['thread-host', 'codex'], ['codex', 'thread-host']] as const) {
  test(`${reader} sees what ${archiver} archived, unarchives it and resumes it whole`, async () => {
    newHome();
    try {
      const first = await startSide(archiver);
      const thread = await threadWithTurn(first, 'archive me');
      expect(await first.request('thread/archive', { threadId: thread.id })).toEqual({});
      expect(await first.close()).toBe(0);

      const second = await startSide(reader);
      expect([await listedIds(second, false), await listedIds(second, true)]).toEqual([[], [thread.id]]);
      expect((await second.request('thread/unarchive', { threadId: thread.id })).thread.path).toBe(thread.path);
      const { thread: resumed } = await second.request('thread/resume', { threadId: thread.id });
      expect(resumed.turns.map((t: Message) => t.items[0].content[0].text)).toEqual(['archive me']);
      expect(await second.close()).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test(`${reader} no longer finds what ${archiver} deleted`, async () => {
    newHome();
    try {
      const first = await startSide(archiver);
      const thread = await threadWithTurn(first, 'delete me');
      await first.request('thread/name/set', { threadId: thread.id, name: 'doomed' });
      expect(await first.request('thread/delete', { threadId: thread.id })).toEqual({});
      expect(existsSync(thread.path)).toBe(false);
      expect(await first.close()).toBe(0);

      const second = await startSide(reader);
      expect(await listedIds(second, false)).toEqual([]);
      expect((await second.requestRaw('thread/resume', { threadId: thread.id })).error).toEqual({ code: -32600, message: `no rollout found for thread id ${thread.id}` });
      expect(await second.close()).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
}
