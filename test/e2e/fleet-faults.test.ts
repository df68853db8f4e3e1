// The fleet's faults, with real host processes on real PostgreSQL: hosts SIGKILLed at random
// points and restarted, the database restarted mid-turn, a host cut from the database by a
// partition that delivers its traffic late, and many hosts resuming one thread at once. After
// each, the stored rows keep the store's invariants (test/helpers/stored-rollout-lines.ts):
// every acknowledged turn (turn/completed, status completed) is there exactly once, ordinals
// run 0..n-1, and epochs never decrease along them, so nothing a host wrote under an epoch it
// had lost follows the line that fenced it.
import { APPEND_STATEMENT_NAME } from '../../src/common/postgres/fenced-append.js';
import { LINGER_MS } from '../../src/actors/history/postgres/commit-groups.js';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, test, vi } from 'vitest';
import { mulberry32 } from '../../bench/lib/seeded-random.js';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { BufferingProxy } from '../helpers/buffering-proxy.js';
import { fleetHostConfig, runTurn, startFleetHost, type FleetTiming } from '../helpers/fleet-hosts.js';
import { clusterUrl, startPostgresCluster } from '../helpers/postgres-cluster.js';
import { expectWellFormed, storedLines, storedTurns } from '../helpers/stored-rollout-lines.js';
import { testDatabase } from '../helpers/test-database.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const TIMING: FleetTiming = { leaseMs: 1_000, renewMs: 250 };

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const startHost = (db: PostgresConnection, timing = TIMING): Promise<TestServer> => startFleetHost(db, mock.url, timing);

/** The store's append as the wire carries it: a prepared statement's name, in its Parse and every Bind. */
const APPEND_STATEMENT = APPEND_STATEMENT_NAME;

const writerTaken = (threadId: string): string => `thread ${threadId} already has an active writer`;

/** Resumes `threadId` on `host`, retrying while another host's lease holds it; the milliseconds it took. */
async function resumeWhenFree(host: TestServer, threadId: string, deadlineMs: number): Promise<number> {
  const startedAt = Date.now();
  for (;;) {
    const reply = await host.requestRaw('thread/resume', { threadId });
    if ('result' in reply) return Date.now() - startedAt;
    expect([reply.error.message, Date.now() - startedAt < deadlineMs]).toEqual([writerTaken(threadId), true]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every acknowledged turn stored exactly once, as completed, in the order acknowledged. */
function expectAcknowledgedStored(stored: ReturnType<typeof storedTurns>, acknowledged: string[]): void {
  const ids = new Set(acknowledged);
  expect(stored.filter((turn) => ids.has(turn.id)).map((turn) => [turn.id, turn.status])).toEqual(acknowledged.map((id) => [id, 'completed']));
}

test('hosts SIGKILLed at random points and restarted lose no acknowledged turn; another host takes over after the lease', async () => {
  const seed = Date.now() % 1_000_000;
  const random = mulberry32(seed);
  const db = await testDatabase();
  const hosts = await Promise.all([0, 1, 2].map(() => startHost(db)));
  const acknowledged: string[] = [];
  const takeovers: number[] = [];
  try {
    const { thread } = await hosts[0]!.request('thread/start', {});
    let current = 0;
    for (let round = 0; round < 8; round += 1) {
      const host = hosts[current]!;
      // The model answers after a random pause, and every other round the host dies at a random
      // point of the turn: before its user message is stored, mid-answer, or after completing.
      const answerAfterMs = 200 + Math.floor(random() * 400);
      mock.enqueue({ kind: 'stall', ms: answerAfterMs });
      const killing = round % 2 === 1;
      const killTimer = killing ? setTimeout(() => host.child.kill('SIGKILL'), Math.floor(random() * (answerAfterMs + 300))) : undefined;
      const outcome = await runTurn(host, thread.id, `round ${round}`).catch(() => null);
      if (outcome?.turn.status === 'completed') acknowledged.push(outcome.turn.id as string);
      if (!killing) {
        expect(outcome?.turn.status).toBe('completed');
        continue;
      }
      host.child.kill('SIGKILL');
      clearTimeout(killTimer);
      await host.close().catch(() => undefined);
      hosts[current] = await startHost(db);
      current = (current + 1) % hosts.length;
      takeovers.push(await resumeWhenFree(hosts[current]!, thread.id, TIMING.leaseMs + 10_000));
    }
    const last = await runTurn(hosts[current]!, thread.id, 'after the kills');
    expect(last.turn.status).toBe('completed');
    acknowledged.push(last.turn.id as string);

    const lines = await storedLines(db, thread.id);
    expectWellFormed(lines, `seed ${seed}`);
    expectAcknowledgedStored(storedTurns(lines), acknowledged);
    // One epoch for the start, one per takeover.
    expect(new Set(lines.map((line) => line.epoch)).size).toBe(1 + takeovers.length);
  } finally {
    await Promise.all(hosts.map((host) => host.close().catch(() => undefined)));
  }
}, 60_000);

test('a database restart mid-turn: the turn ends, nothing acknowledged is lost, and the host serves on', async () => {
  const cluster = startPostgresCluster();
  const db: PostgresConnection = { url: clusterUrl('postgres', cluster.socketDir) };
  const host = await startHost(db, { leaseMs: 5_000, renewMs: 500 });
  try {
    const { thread } = await host.request('thread/start', {});
    const before = await runTurn(host, thread.id, 'before the restart');
    mock.enqueue({ kind: 'stall', ms: 1_500 });
    const { turn: across } = await host.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'across the restart' }] });
    await vi.waitFor(async () => expect((await storedLines(db, thread.id)).some((line) => line.line.includes('across the restart'))).toBe(true), { timeout: 10_000 });
    cluster.restart();
    const ended = await host.waitForNotification('turn/completed', (p) => p.turn.id === across.id, 20_000);
    const after = await runTurn(host, thread.id, 'after the restart', 20_000);
    expect([before.turn.status, after.turn.status]).toEqual(['completed', 'completed']);

    const lines = await storedLines(db, thread.id);
    expectWellFormed(lines);
    const acknowledged = [before, ended, after].filter((done) => done.turn.status === 'completed').map((done) => done.turn.id as string);
    expectAcknowledgedStored(storedTurns(lines), acknowledged);
    expect(storedTurns(lines).map((turn) => turn.id)).toEqual([before.turn.id, across.id, after.turn.id]);
  } finally {
    await host.close().catch(() => undefined);
    cluster.stop();
  }
}, 60_000);

test('a partition that delivers late: the stale append writes nothing and the owner gives the thread up', async () => {
  const db = await testDatabase();
  const database = /\/(\w+)\?/.exec(db.url!)![1]!;
  const proxy = await BufferingProxy.start(join(inject('postgresSocketDir'), '.s.PGSQL.5432'));
  const viaProxy: PostgresConnection = { url: `postgresql://postgres@127.0.0.1:${proxy.port}/${database}` };
  const timing: FleetTiming = { leaseMs: 1_500, renewMs: 300 };
  const [owner, other] = await Promise.all([TestServer.start({ modelUrl: mock.url, rootConfig: fleetHostConfig(viaProxy, timing) }), startHost(db, timing)]);
  try {
    const { thread } = await owner.request('thread/start', {});
    const first = await runTurn(owner, thread.id, 'before the partition');
    // The owner's next turn: once its user message is stored (its turn's lines linger for
    // LINGER_MS first), the partition begins with the owner's next append (its answer's),
    // which waits in the proxy with everything after it.
    mock.enqueue({ kind: 'stall', ms: LINGER_MS + 500 });
    const { turn: cut } = await owner.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'across the partition' }] });
    await vi.waitFor(async () => expect((await storedLines(db, thread.id)).some((line) => line.line.includes('across the partition'))).toBe(true), { timeout: 10_000 });
    proxy.holdFrom(APPEND_STATEMENT);
    await vi.waitFor(() => expect(proxy.holding).toBe(true), { timeout: 10_000 });

    await resumeWhenFree(other, thread.id, timing.leaseMs + 10_000);
    const third = await runTurn(other, thread.id, 'after the takeover');
    const beforeDelivery = await storedLines(db, thread.id);

    // The partition ends: everything the owner sent reaches the database, late.
    proxy.release();
    expect(proxy.deliveredLate).toBeGreaterThan(0);
    // The owner's append was among what arrived after the takeover.
    expect(proxy.deliveredLateToDatabase()).toContain(APPEND_STATEMENT);
    await owner.waitForNotification('thread/closed', (p) => p.threadId === thread.id, 15_000);
    const failed = await owner.waitForNotification('turn/completed', (p) => p.turn.id === cut.id, 15_000);
    expect(failed.turn.status).toBe('failed');

    const lines = await storedLines(db, thread.id);
    expect(lines).toEqual(beforeDelivery);
    expectWellFormed(lines);
    expect(storedTurns(lines).map((turn) => [turn.id, turn.status])).toEqual([
      [first.turn.id, 'completed'],
      [cut.id, 'interrupted'],
      [third.turn.id, 'completed'],
    ]);
  } finally {
    proxy.release();
    await Promise.all([owner.close().catch(() => undefined), other.close()]);
    await proxy.close();
  }
}, 60_000);

test('an acquisition storm: many resumes of one thread across hosts at once, one host wins each time', async () => {
  const db = await testDatabase();
  const hosts = await Promise.all([0, 1, 2].map(() => startHost(db)));
  try {
    const { thread } = await hosts[0]!.request('thread/start', {});
    const acknowledged = [(await runTurn(hosts[0]!, thread.id, 'storm 0')).turn.id as string];
    const winners: number[] = [];
    for (let round = 1; round <= 3; round += 1) {
      const holder = winners.at(-1) ?? 0;
      await hosts[holder]!.request('thread/unsubscribe', { threadId: thread.id });
      await hosts[holder]!.waitForNotification('thread/closed', (p) => p.threadId === thread.id);
      hosts[holder]!.clearInbox();
      const replies = await Promise.all(hosts.map((host) => Promise.all([0, 1, 2, 3].map(() => host.requestRaw('thread/resume', { threadId: thread.id })))));
      const outcomes = replies.map((perHost) => perHost.map((reply: Message) => ('result' in reply ? 'resumed' : reply.error.message)));
      const winner = outcomes.findIndex((perHost) => perHost[0] === 'resumed');
      const lost = [0, 1, 2, 3].map(() => writerTaken(thread.id));
      expect(outcomes).toEqual(hosts.map((_, index) => (index === winner ? ['resumed', 'resumed', 'resumed', 'resumed'] : lost)));
      winners.push(winner);
      const done = await runTurn(hosts[winner]!, thread.id, `storm ${round}`);
      expect(done.turn.status).toBe('completed');
      acknowledged.push(done.turn.id as string);
    }
    const lines = await storedLines(db, thread.id);
    expectWellFormed(lines);
    expectAcknowledgedStored(storedTurns(lines), acknowledged);
    // One epoch per winner: the losers' acquisitions moved nothing.
    expect([...new Set(lines.map((line) => line.epoch))]).toEqual([1, 2, 3, 4]);
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
  }
}, 60_000);
