// Opt-in (`npm run test:interop`): a thread the reference wrote, moved through the PostgreSQL
// store (`thread-host fleet import`, then `export` into another home), reads in the reference
// exactly as it did in its own home, in both history formats; and a thread forked or reverted
// on the store, exported, reads in the reference with the turns it kept.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { runFleet } from '../helpers/fleet-cli.js';
import { testDatabase } from '../helpers/test-database.js';
import { postgresLines } from '../helpers/thread-stores.js';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
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

/** A host on the PostgreSQL store at `db`, its model the reference's mock. */
const storeHost = (db: PostgresConnection) => TestServer.start({ modelUrl: reference.mock.url, rootConfig: [...postgresLines(db), 'thread_unload_delay_secs = 0'].join('\n') });

/** The turns a thread-host on the store reads of `threadId`. */
async function storeTurns(host: TestServer, threadId: string): Promise<Message[]> {
  const { thread } = await host.request('thread/read', { threadId, includeTurns: true });
  return thread.turns as Message[];
}

// A thread forked or reverted on the store keeps its history in its own rows (no file to name as
// a base), so its export is the whole kept history in one file, which the reference reads with
// every turn kept (a paginated one once its ordinals rise through the file:
// src/main/commands/fleet/exported-rollout-text.ts). A revert is tried on a paginated thread only.
describe.each(['paginated', 'legacy'] as const)('%s, forked or reverted on the store', (mode) => {
  test('the reference reads the exported fork and reverted thread with the turns they kept', async () => {
    const db = await testDatabase();
    const host = await storeHost(db);
    const threads: Record<string, string> = {};
    const expected: Record<string, Message[]> = {};
    try {
      const { thread: source } = await host.request('thread/start', { historyMode: mode });
      for (const text of ['one', 'two', 'three']) await turn(host, source.id, text);
      const turnIds = (await storeTurns(host, source.id)).map((t) => t.id as string);
      const { thread: fork } = await host.request('thread/fork', { threadId: source.id, lastTurnId: turnIds[1] });
      await turn(host, fork.id, 'on the fork');
      threads.fork = fork.id;
      if (mode === 'paginated') {
        await host.request('thread/revert', { threadId: source.id, beforeTurnId: turnIds[2] });
        await turn(host, source.id, 'after the revert');
        threads.reverted = source.id;
      }
      for (const [label, threadId] of Object.entries(threads)) expected[label] = await storeTurns(host, threadId);
    } finally {
      await host.close();
    }
    expect(expected.fork!.map((t) => t.items[0].content[0].text)).toEqual(['one', 'two', 'on the fork']);
    if (mode === 'paginated') expect(expected.reverted!.map((t) => t.items[0].content[0].text)).toEqual(['one', 'two', 'after the revert']);

    const hostHome = join(scratch, 'host');
    const target = newHome();
    for (const [label, threadId] of Object.entries(threads)) {
      const exported = runFleet(db, hostHome, 'export', threadId, '--home', target);
      expect(exported, label).toMatchObject({ status: 0, stderr: '' });
      const path = exported.stdout.replace(/^wrote /, '').trim();
      // One file holds the whole history: nothing in it names another file.
      expect(readFileSync(path, 'utf8').includes('"history_base"'), label).toBe(false);
      expect(readFileSync(path, 'utf8').split('\n')[0], label).toMatch(/"type":"session_meta"/);
      // A paginated thread the reference did not write reads empty until a resume fills its
      // history database (as any exported paginated thread: see the test above).
      const cold = await coldRead(target, threadId, [target]);
      await resumeOnce(target, threadId);
      const resumed = await coldRead(target, threadId, [target]);
      expect({ label, cold: cold.turns, resumed: resumed.turns }).toEqual({ label, cold: mode === 'paginated' ? [] : expected[label], resumed: expected[label] });
    }
  });
});
