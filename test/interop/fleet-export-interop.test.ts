// Opt-in (`npm run test:interop`): a thread the reference wrote, moved through the PostgreSQL
// store (`thread-host fleet import`, then `export` into another home), reads in the reference
// exactly as it did in its own home, in both history formats.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { runFleet } from '../helpers/fleet-cli.js';
import { testDatabase } from '../helpers/test-database.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

const reference = referenceAndMock();
const scratch = mkdtempSync(join(tmpdir(), 'thread-host-fleet-interop-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function newHome(): string {
  const home = mkdtempSync(join(scratch, 'home-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  return home;
}

const codexIn = (home: string) => TestServer.start({ home, keepConfig: true, command: [reference.codex, 'app-server', '--listen', 'stdio://'] });

async function turn(server: TestServer, threadId: string, text: string): Promise<void> {
  const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p) => p.threadId === threadId && p.turn.id === started.id, 20_000);
}

/**
 * The thread of the reference's cold thread/read of `threadId` in `home`, with every home
 * written as $HOME. The read state (what this home's client has seen) is the home's own, not
 * the thread's, and does not move with it.
 */
async function coldRead(home: string, threadId: string, homes: string[]): Promise<Message> {
  const codex = await codexIn(home);
  try {
    const read = await codex.request('thread/read', { threadId, includeTurns: true });
    return JSON.parse(homes.reduce((text, each) => text.replaceAll(each, '$HOME'), JSON.stringify(read.thread))) as Message;
  } finally {
    await codex.close();
  }
}

/**
 * Resumes `threadId` in the reference and lets it go: the reference answers a paginated cold
 * read from its own history database, which it fills from the rollout at a resume.
 */
async function resumeOnce(home: string, threadId: string): Promise<void> {
  const codex = await codexIn(home);
  try {
    await codex.request('thread/resume', { threadId });
  } finally {
    await codex.close();
  }
}

describe.each(['paginated', 'legacy'] as const)('%s', (mode) => {
  test('the reference reads an exported thread as it read its own', async () => {
    const db = await testDatabase();
    const source = newHome();
    const codex = await codexIn(source);
    let threadId: string;
    try {
      const { thread } = await codex.request('thread/start', { historyMode: mode });
      threadId = thread.id;
      await turn(codex, threadId, 'hello');
      await turn(codex, threadId, 'and again');
    } finally {
      await codex.close();
    }
    const hostHome = join(scratch, 'host');
    expect(runFleet(db, hostHome, 'import', source)).toMatchObject({ status: 0, stderr: '' });
    const target = newHome();
    expect(runFleet(db, hostHome, 'export', threadId, '--home', target)).toMatchObject({ status: 0, stderr: '' });
    const before = await coldRead(source, threadId, [source]);
    expect(before.turns).toHaveLength(2);
    await resumeOnce(target, threadId);
    expect(await coldRead(target, threadId, [source, target])).toEqual(before);
  });
});
