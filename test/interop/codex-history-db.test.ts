// Opt-in (`npm run test:interop`): the reference's paginated history database, shared.
// thread-host projects what it appends into codex 0.171.0's thread_history_1.sqlite, so the
// reference's cold reads (answered from that database only) show every turn: of a codex thread
// thread-host continued, and of threads thread-host created. Parity: the rows thread-host wrote
// are the rows the reference writes when it rebuilds the projection from the rollout (its rows
// deleted, the thread resumed), a reverted thread's newest file included (projected under its
// own file id). A database whose migrations are not 0.171.0's is left untouched.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, test } from 'vitest';
import { referenceAndMock } from './reference-and-mock.js';
import { threadRows } from '../helpers/reference-history-db.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';

const reference = referenceAndMock();

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-history-db-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(reference.mock.url, 'thread_unload_delay_secs = 0'));
  return home;
}

const start = (side: 'codex' | 'thread-host', home: string) =>
  TestServer.start({ home, keepConfig: true, ...(side === 'codex' ? { command: [reference.codex, 'app-server', '--listen', 'stdio://'] } : {}) });

async function turn(server: TestServer, threadId: string, text: string): Promise<void> {
  const { turn: begun } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  await server.waitForNotification('turn/completed', (p) => p.threadId === threadId && p.turn.id === begun.id, 20_000);
}

async function unload(server: TestServer, threadId: string): Promise<void> {
  const closed = server.waitForNotification('thread/closed', (p) => p.threadId === threadId, 20_000);
  await server.request('thread/unsubscribe', { threadId });
  await closed;
}

/** What the reference's cold reads show of a thread: each turn's status and item texts, three ways. */
async function coldReads(server: TestServer, threadId: string): Promise<Message> {
  const texts = (turns: Message[]) => turns.map((t) => [t.status, ...t.items.map((i: Message) => (i.type === 'userMessage' ? i.content[0].text : i.text))]);
  const read = await server.request('thread/read', { threadId, includeTurns: true });
  const listed = await server.request('thread/turns/list', { threadId, itemsView: 'full', sortDirection: 'asc' });
  const items = await server.request('thread/items/list', { threadId, sortDirection: 'asc' });
  return { read: texts(read.thread.turns), listed: texts(listed.data), items: items.data.map((entry: Message) => entry.item.type) };
}

function deleteProjection(dbPath: string, threadId: string): void {
  const db = new Database(dbPath);
  for (const table of ['thread_items', 'thread_turns', 'thread_history_projection_state']) db.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(threadId);
  db.close();
}

describe('the reference\'s history database, shared', () => {
  test('cold reads by the reference show every turn thread-host wrote, and its rows are the reference\'s own', async () => {
    const home = newHome();
    const dbPath = join(home, 'thread_history_1.sqlite');
    try {
      // A codex thread with one turn (this creates the database), continued by thread-host.
      let ref = await start('codex', home);
      const { thread: continued } = await ref.request('thread/start', {});
      await turn(ref, continued.id, 'one');
      await unload(ref, continued.id);
      await ref.close();
      const host = await start('thread-host', home);
      await host.request('thread/resume', { threadId: continued.id, excludeTurns: true });
      await turn(host, continued.id, 'two');
      await turn(host, continued.id, 'three');
      await unload(host, continued.id);
      // Threads thread-host creates.
      const created: string[] = [];
      for (const name of ['a', 'b', 'c']) {
        const { thread } = await host.request('thread/start', {});
        await turn(host, thread.id, `${name}1`);
        await turn(host, thread.id, `${name}2`);
        await unload(host, thread.id);
        created.push(thread.id);
      }
      // Every outcome and input kind thread-host writes.
      const { thread: mixed } = await host.request('thread/start', {});
      reference.mock.enqueue({ kind: 'httpError', status: 500, body: 'down' });
      await turn(host, mixed.id, 'fails');
      reference.mock.enqueue({ kind: 'stall', ms: 20_000 });
      const { turn: stalled } = await host.request('turn/start', { threadId: mixed.id, input: [{ type: 'text', text: 'interrupted' }] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await host.request('turn/interrupt', { threadId: mixed.id, turnId: stalled.id });
      await host.waitForNotification('turn/completed', (p) => p.turn.id === stalled.id, 20_000);
      const { turn: pictured } = await host.request('turn/start', {
        threadId: mixed.id,
        input: [
          { type: 'text', text: 'look', text_elements: [{ byteRange: { start: 0, end: 4 }, placeholder: 'look' }] },
          { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' },
          { type: 'localImage', path: '/tmp/picture.png' },
        ],
      });
      await host.waitForNotification('turn/completed', (p) => p.turn.id === pictured.id, 20_000);
      await unload(host, mixed.id);
      await host.close();

      ref = await start('codex', home);
      const mixedRead = await ref.request('thread/read', { threadId: mixed.id, includeTurns: true });
      expect(mixedRead.thread.turns.map((t: Message) => [t.status, t.items.map((i: Message) => i.type)])).toEqual([
        ['failed', ['userMessage']],
        ['interrupted', ['userMessage']],
        ['completed', ['userMessage', 'agentMessage']],
      ]);
      const expected = (texts: string[]) => ({
        read: texts.map((t) => ['completed', t, 'Done']),
        listed: texts.map((t) => ['completed', t, 'Done']),
        items: texts.flatMap(() => ['userMessage', 'agentMessage']),
      });
      expect(await coldReads(ref, continued.id)).toEqual(expected(['one', 'two', 'three']));
      for (const [i, id] of created.entries()) expect(await coldReads(ref, id)).toEqual(expected([`${'abc'[i]}1`, `${'abc'[i]}2`]));

      // Parity: the reference rebuilds each projection from the rollout on resume.
      for (const id of [continued.id, ...created, mixed.id]) {
        const ours = threadRows(dbPath, id);
        const { thread } = await ref.request('thread/read', { threadId: id });
        const size = statSync(thread.path).size;
        expect(ours.checkpoint).toEqual({ thread_id: id, next_rollout_byte_offset: size, next_rollout_ordinal: lineCount(thread.path) });
        deleteProjection(dbPath, id);
        await ref.request('thread/resume', { threadId: id, excludeTurns: true });
        await unload(ref, id);
        const rebuilt = threadRows(dbPath, id);
        expect({ turns: rebuilt.turns, items: rebuilt.items }).toEqual({ turns: ours.turns, items: ours.items });
      }
      await ref.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);

  test('a thread thread-host reverted reads as one the reference reverted, and its rows are the reference\'s own', async () => {
    // The same scenario by each side, in a home of its own whose database the reference created.
    const scenario = async (side: 'codex' | 'thread-host', home: string) => {
      const server = await start(side, home);
      const { thread } = await server.request('thread/start', {});
      await turn(server, thread.id, 'kept');
      await turn(server, thread.id, 'dropped');
      const { data } = await server.request('thread/turns/list', { threadId: thread.id, sortDirection: 'desc', limit: 1 });
      const { thread: reverted } = await server.request('thread/revert', { threadId: thread.id, beforeTurnId: data[0].id });
      await turn(server, thread.id, 'after the revert');
      await unload(server, thread.id);
      await server.close();
      return { threadId: thread.id as string, revertedPath: reverted.path as string, fileId: (reverted.path as string).slice(-42, -6) };
    };
    const homes = { codex: newHome(), 'thread-host': newHome() };
    try {
      const views: Record<string, unknown> = {};
      for (const side of ['codex', 'thread-host'] as const) {
        // The reference creates its database with its first turn.
        const creator = await start('codex', homes[side]);
        const { thread: seed } = await creator.request('thread/start', {});
        await turn(creator, seed.id, 'seed');
        await creator.close();
        const { threadId, fileId, revertedPath } = await scenario(side, homes[side]);
        const dbPath = join(homes[side], 'thread_history_1.sqlite');
        const ref = await start('codex', homes[side]);
        views[side] = await coldReads(ref, threadId);
        if (side === 'thread-host') {
          // The reference rebuilds the newest file's projection on resume (only that file's).
          const ours = threadRows(dbPath, fileId);
          expect(ours.turns.length).toBe(1);
          expect((ours.checkpoint as Message).next_rollout_byte_offset).toBe(statSync(revertedPath).size);
          deleteProjection(dbPath, fileId);
          await ref.request('thread/resume', { threadId, excludeTurns: true });
          await unload(ref, threadId);
          const rebuilt = threadRows(dbPath, fileId);
          expect({ turns: rebuilt.turns, items: rebuilt.items }).toEqual({ turns: ours.turns, items: ours.items });
        }
        await ref.close();
      }
      expect(views['thread-host']).toEqual(views.codex);
    } finally {
      for (const home of Object.values(homes)) rmSync(home, { recursive: true, force: true });
    }
  }, 180_000);

  test('a database with an extra or changed migration is left untouched', async () => {
    for (const edit of ["INSERT INTO _sqlx_migrations VALUES (10, 'later', CURRENT_TIMESTAMP, 1, x'AB', 1)", "UPDATE _sqlx_migrations SET checksum = x'CD' WHERE version = 9"]) {
      const home = newHome();
      const dbPath = join(home, 'thread_history_1.sqlite');
      try {
        const ref = await start('codex', home);
        const { thread: seed } = await ref.request('thread/start', {});
        await turn(ref, seed.id, 'seed');
        await unload(ref, seed.id);
        await ref.close();
        const db = new Database(dbPath);
        db.exec(edit);
        db.close();
        const host = await start('thread-host', home);
        const { thread } = await host.request('thread/start', {});
        await turn(host, thread.id, 'one');
        await unload(host, thread.id);
        const seedBefore = threadRows(dbPath, seed.id);
        await host.request('thread/resume', { threadId: seed.id, excludeTurns: true });
        await turn(host, seed.id, 'two');
        await unload(host, seed.id);
        await host.close();
        expect(threadRows(dbPath, thread.id)).toEqual({ turns: [], items: [], checkpoint: null });
        expect(threadRows(dbPath, seed.id)).toEqual(seedBefore);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  }, 180_000);
});

function lineCount(path: string): number {
  return Number(execFileSync('wc', ['-l', path]).toString().trim().split(/\s+/)[0]);
}
