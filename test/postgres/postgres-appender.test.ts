// The actor's appender on the PostgreSQL store, on a real database: batches land in order at
// contiguous lines, those handed over during a statement together in the next; a batch
// refused because another host took the thread over revokes the appender and tells the host
// once; and a batch whose commit the appender could not see (its
// deadline passed while the statement waited on a row lock, then the statement committed
// anyway) is cut back before the next one, so the store holds exactly the batches the actor
// saw land.
import type pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PostgresAppender } from '../../src/actors/history/postgres/postgres-appender.js';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { registerHost } from '../../src/common/postgres/host-lease.js';
import { acquireThread } from '../../src/common/postgres/thread-ownership.js';
import { migratedStore } from '../helpers/test-database.js';

let pool: pg.Pool;
let connection: PostgresConnection;

beforeAll(async () => {
  ({ pool, connection } = await migratedStore('appender test', 4));
});
afterAll(async () => pool.end());

async function stored(threadId: string): Promise<Array<[number, number, string]>> {
  const result = await pool.query<{ ordinal: string; epoch: string; line: string }>('SELECT ordinal, epoch, line FROM rollout_lines WHERE thread_id = $1 ORDER BY ordinal', [threadId]);
  return result.rows.map((row) => [Number(row.ordinal), Number(row.epoch), row.line]);
}

async function acquired(threadId: string, leaseMs = 60_000): Promise<{ epoch: number; nextLine: number }> {
  const hostId = await registerHost(pool, 'ws://127.0.0.1:1', leaseMs);
  const outcome = await acquireThread(pool, { threadId, hostId, create: true });
  if (outcome.kind !== 'acquired') throw new Error(outcome.kind);
  return { epoch: outcome.epoch, nextLine: outcome.nextOrdinal };
}

function appender(threadId: string, fencing: { epoch: number; nextLine: number }, fenced: string[] = [], deadlineMs?: number): PostgresAppender {
  return new PostgresAppender(threadId, { store: 'postgres', connection, ...fencing }, { ordinals: null, fence: null, onFenced: (message) => fenced.push(message), ...(deadlineMs === undefined ? {} : { deadlineMs }) });
}

test('batches queued without waiting land in call order at contiguous lines', async () => {
  const writer = appender('ordered', await acquired('ordered'));
  await Promise.all([writer.append(['{"a":1}', '{"a":2}']), writer.append(['{"a":3}']), writer.append(['{"a":4}'])]);
  await writer.close();
  expect(await stored('ordered')).toEqual([
    [0, 1, '{"a":1}'],
    [1, 1, '{"a":2}'],
    [2, 1, '{"a":3}'],
    [3, 1, '{"a":4}'],
  ]);
});

test('batches handed over while a statement is in flight commit together, in one transaction', async () => {
  const writer = appender('grouped', await acquired('grouped'));
  await Promise.all([writer.append(['{"g":1}']), writer.append(['{"g":2}']), writer.append(['{"g":3}'])]);
  const rows = await pool.query<{ ordinal: string; xmin: string }>("SELECT ordinal, xmin::text FROM rollout_lines WHERE thread_id = 'grouped' ORDER BY ordinal");
  const [first, second, third] = rows.rows.map((row) => row.xmin);
  expect([first === second, second === third]).toEqual([false, true]);
});

test('a takeover fences the old writer: its batch and every later one are refused, and the host is told once', async () => {
  const fenced: string[] = [];
  // The old owner's lease lapses at once, so another host may take the thread over.
  const old = appender('taken', await acquired('taken', 1), fenced);
  await old.append(['{"by":"old"}']);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await acquired('taken'); // another host's acquisition: epoch 2
  await expect(old.append(['{"by":"old, late"}'])).rejects.toThrow('another host took thread taken over in the PostgreSQL thread store (its epoch is now 2, ours was 1); nothing more is written here');
  await expect(old.append(['{"by":"old, later"}'])).rejects.toThrow('another host took thread taken over');
  expect([old.reset(), fenced.length, await stored('taken')]).toEqual(['unrecoverable', 1, [[0, 1, '{"by":"old"}']]]);
});

test('a batch committed after its deadline passed is cut back before the next batch, under the same epoch', async () => {
  const writer = appender('uncertain', await acquired('uncertain'), [], 300);
  await writer.append(['{"n":0}']);
  // Another session holds the owner row: the next batch waits on it past its deadline.
  const blocker = await pool.connect();
  await blocker.query('BEGIN');
  await blocker.query("SELECT 1 FROM thread_owners WHERE thread_id = 'uncertain' FOR UPDATE");
  await expect(writer.append(['{"n":1}'])).rejects.toThrow('failed to append to thread uncertain in the PostgreSQL thread store');
  await blocker.query('COMMIT');
  blocker.release();
  // The abandoned statement commits once the row is free; the actor never saw it land.
  await expect.poll(() => stored('uncertain'), { timeout: 5_000 }).toEqual([
    [0, 1, '{"n":0}'],
    [1, 1, '{"n":1}'],
  ]);
  expect(writer.failed).toBe(true);
  expect(writer.reset()).toBe('ready');
  await writer.append(['{"n":2}']);
  expect(await stored('uncertain')).toEqual([
    [0, 1, '{"n":0}'],
    [1, 1, '{"n":2}'],
  ]);
});
