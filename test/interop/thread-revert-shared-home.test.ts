// Opt-in (`npm run test:interop`): a thread thread-host reverted, on a home shared with the real
// reference, codex-cli 0.171.0. The reference reads a paginated thread's turns from its history
// database (thread_history_1.sqlite), where it projects each file under its own id as it writes
// it; a reverted thread whose earlier files it never projected (its own, copied into a fresh
// home, as much as thread-host's) it reads as its newest file's own lines: no turns before a
// resume, that file's own turns after it, its first message as the preview. This checks the
// reference treats a thread thread-host reverted exactly as it treats one it reverted itself
// (test/fixtures/rollouts/reference-reverted), and that thread-host reads the thread whole.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

const reference = referenceAndMock();
const REVERTED_BY_REFERENCE = { id: '01a2441f-9162-7e20-bb69-67ca7806dcca', ownTurns: ['five'] };

function startSide(side: 'thread-host' | 'codex', home: string): Promise<TestServer> {
  return TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });
}

async function turn(server: TestServer, threadId: string, text: string): Promise<string> {
  const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id, 20_000);
  return started.id;
}

const firstTexts = (turns: Message[]) => turns.map((t: Message) => t.items[0].content[0].text as string);

/** What the reference shows of a reverted thread in `home`: its read, then its turns after a resume. */
async function referenceView(home: string, threadId: string): Promise<unknown> {
  const codex = await startSide('codex', home);
  const { thread } = await codex.request('thread/read', { threadId, includeTurns: true });
  await codex.request('thread/resume', { threadId, excludeTurns: true });
  const { data } = await codex.request('thread/turns/list', { threadId, sortDirection: 'asc' });
  expect(await codex.close()).toBe(0);
  return { preview: thread.preview, readTurns: thread.turns, resumedTurns: firstTexts(data) };
}

function freshHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-interop-revert-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  return home;
}

test('the reference reads a thread thread-host reverted as it reads one it reverted itself', async () => {
  const own = freshHome();
  const hosted = freshHome();
  try {
    cpSync(new URL('../fixtures/rollouts/reference-reverted/sessions/', import.meta.url), join(own, 'sessions'), { recursive: true });
    expect(await referenceView(own, REVERTED_BY_REFERENCE.id)).toEqual({ preview: REVERTED_BY_REFERENCE.ownTurns[0], readTurns: [], resumedTurns: REVERTED_BY_REFERENCE.ownTurns });

    const host = await startSide('thread-host', hosted);
    const { thread } = await host.request('thread/start', {});
    await turn(host, thread.id, 'kept');
    const dropped = await turn(host, thread.id, 'dropped');
    await host.request('thread/revert', { threadId: thread.id, beforeTurnId: dropped });
    await turn(host, thread.id, 'after the revert');
    expect(await host.close()).toBe(0);
    expect(await referenceView(hosted, thread.id)).toEqual({ preview: 'after the revert', readTurns: [], resumedTurns: ['after the revert'] });

    const reader = await startSide('thread-host', hosted);
    const read = await reader.request('thread/read', { threadId: thread.id, includeTurns: true });
    expect([read.thread.preview, firstTexts(read.thread.turns)]).toEqual(['kept', ['kept', 'after the revert']]);
    expect(await reader.close()).toBe(0);
  } finally {
    rmSync(own, { recursive: true, force: true });
    rmSync(hosted, { recursive: true, force: true });
  }
});
