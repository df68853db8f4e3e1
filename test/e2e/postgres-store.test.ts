// Hosts on the PostgreSQL thread store (thread_store = "postgres"), each with its own home, on
// one database of the run's throwaway cluster: a thread written by one host is read, listed and
// resumed by another; a host frees a thread at unload so the next takes it over at once; and a
// host paused past its lease mid-turn writes nothing once it wakes, because the store refuses
// its appends (the epoch moved on), whatever it still believes.
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { RpcReplyError, TestServer, type Message } from '../helpers/test-server.js';
import { runTurn, startFleetHost } from '../helpers/fleet-hosts.js';
import { expectWellFormed, storedLines, storedTurns } from '../helpers/stored-rollout-lines.js';
import { testDatabase } from '../helpers/test-database.js';

const LEASE_MS = 2_000;
const RENEW_MS = 500;

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const startHost = (db: PostgresConnection): Promise<TestServer> => startFleetHost(db, mock.url, { leaseMs: LEASE_MS, renewMs: RENEW_MS });

const turnSummary = (thread: Message) => (thread.turns as Message[]).map((turn) => ({ id: turn.id, status: turn.status, items: (turn.items as Message[]).map((item) => item.type) }));

test('a thread written by one host is read, listed and, once unloaded there, resumed by another', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const { thread } = await a.request('thread/start', {});
    expect(thread.path).toBe(null);
    const first = await runTurn(a, thread.id, 'hello from A');
    expect(first.turn.status).toBe('completed');

    // B reads it from the store without loading it, as A shows it.
    const fromA = (await a.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    const fromB = (await b.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    expect(turnSummary(fromB)).toEqual(turnSummary(fromA));
    expect([fromB.status, fromB.preview, fromB.path]).toEqual([{ type: 'notLoaded' }, 'hello from A', null]);
    const listed = await b.request('thread/list', {});
    expect(listed.data.map((row: Message) => [row.id, row.preview])).toEqual([[thread.id, 'hello from A']]);

    // A owns it: B is refused as another process of one home is.
    expect(await b.request('thread/resume', { threadId: thread.id }).catch((error: unknown) => error)).toEqual(new RpcReplyError(-32600, `thread ${thread.id} already has an active writer`));

    // A unloads it (its last subscriber leaves) and frees it in the store: B takes it over at once.
    await a.request('thread/unsubscribe', { threadId: thread.id });
    await a.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
    const resumed = await b.request('thread/resume', { threadId: thread.id });
    expect(turnSummary(resumed.thread)).toEqual(turnSummary(fromA));
    const second = await runTurn(b, thread.id, 'hello from B');
    expect(second.turn.status).toBe('completed');

    const lines = await storedLines(db, thread.id);
    expectWellFormed(lines);
    expect(new Set(lines.map((line) => line.epoch))).toEqual(new Set([1, 2]));
    expect(storedTurns(lines).map((turn) => [turn.id, turn.status])).toEqual([
      [first.turn.id, 'completed'],
      [second.turn.id, 'completed'],
    ]);
    // A reads B's turn from the store.
    const afterB = (await a.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
    expect(afterB.turns.map((turn: Message) => turn.id)).toEqual([first.turn.id, second.turn.id]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a host paused past its lease mid-turn writes nothing after another host took the thread over', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const { thread } = await a.request('thread/start', {});
    const first = await runTurn(a, thread.id, 'before the pause');
    // A's next turn waits on the model; once its user message is stored, A is paused.
    mock.enqueue({ kind: 'stall', ms: LEASE_MS * 3 });
    const { turn: paused } = await a.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'across the pause' }] });
    await vi.waitFor(async () => expect((await storedLines(db, thread.id)).some((line) => line.line.includes('across the pause'))).toBe(true), { timeout: 10_000 });
    a.child.kill('SIGSTOP');
    const stoppedAt = Date.now();

    // B is refused while A's lease runs, then takes the thread over.
    for (;;) {
      const reply = await b.requestRaw('thread/resume', { threadId: thread.id });
      if ('result' in reply) break;
      expect([reply.error.message, Date.now() - stoppedAt < LEASE_MS + 5_000]).toEqual([`thread ${thread.id} already has an active writer`, true]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const tookOverAfterMs = Date.now() - stoppedAt;
    expect(tookOverAfterMs).toBeGreaterThanOrEqual(LEASE_MS - RENEW_MS);
    const third = await runTurn(b, thread.id, 'after the takeover');
    const beforeWaking = await storedLines(db, thread.id);

    // A wakes: its model answer arrives, its append is refused by the store, and it gives the thread up.
    a.child.kill('SIGCONT');
    await a.waitForNotification('thread/closed', (p) => p.threadId === thread.id, 15_000);
    const failed = await a.waitForNotification('turn/completed', (p) => p.turn.id === paused.id, 15_000);
    expect(failed.turn.status).toBe('failed');

    const lines = await storedLines(db, thread.id);
    expect(lines).toEqual(beforeWaking);
    expectWellFormed(lines);
    expect(storedTurns(lines).map((turn) => [turn.id, turn.status])).toEqual([
      [first.turn.id, 'completed'],
      // Started on A, never finished there: the reader closes it as interrupted.
      [paused.id, 'interrupted'],
      [third.turn.id, 'completed'],
    ]);
  } finally {
    a.child.kill('SIGCONT');
    await Promise.all([a.close(), b.close()]);
  }
});
