// Queued input on a real PostgreSQL (src/common/postgres/queued-input.ts): a queue written only
// at the version its writer read, versions that never repeat (not even for a queue removed and
// queued again), and each write or removal announced on the channel as it commits.
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { QUEUE_CHANNEL, readQueue, removeQueue, writeQueue } from '../../src/common/postgres/queued-input.js';
import { migratedStore } from '../helpers/test-database.js';

let pool: pg.Pool;
let connection: PostgresConnection;

beforeAll(async () => {
  ({ pool, connection } = await migratedStore('queued input test', 4));
});
afterAll(async () => pool.end());

test('a queue is written only at the version read; two writers at one version: exactly one applies', async () => {
  expect(await readQueue(pool, 'q')).toEqual({ submissions: [], version: 0 });
  expect(await writeQueue(pool, { threadId: 'q', origin: 'o', submissions: ['a'], expectedVersion: 0 })).toBe(true);
  const first = await readQueue<string>(pool, 'q');
  expect(first.submissions).toEqual(['a']);
  expect(await writeQueue(pool, { threadId: 'q', origin: 'o', submissions: ['b'], expectedVersion: 0 })).toBe(false);
  const raced = await Promise.all(['x', 'y'].map((s) => writeQueue(pool, { threadId: 'q', origin: 'o', submissions: ['a', s], expectedVersion: first.version })));
  expect(raced.filter(Boolean).length).toBe(1);
  const after = await readQueue<string>(pool, 'q');
  expect([after.submissions.length, after.submissions[0], after.version > first.version]).toEqual([2, 'a', true]);
});

test('a removed queue queued again never takes a version an older reader could still hold', async () => {
  expect(await writeQueue(pool, { threadId: 'r', origin: 'o', submissions: ['a'], expectedVersion: 0 })).toBe(true);
  const old = await readQueue<string>(pool, 'r');
  await removeQueue(pool, { threadId: 'r', origin: 'o' });
  expect(await readQueue(pool, 'r')).toEqual({ submissions: [], version: 0 });
  expect(await writeQueue(pool, { threadId: 'r', origin: 'o', submissions: ['new'], expectedVersion: 0 })).toBe(true);
  expect(await writeQueue(pool, { threadId: 'r', origin: 'o', submissions: ['stale'], expectedVersion: old.version })).toBe(false);
  expect((await readQueue(pool, 'r')).submissions).toEqual(['new']);
});

test('writes and removals are announced with the thread and the writer; a write that did not apply is not', async () => {
  const listener = new pg.Client({ connectionString: connection.url! });
  await listener.connect();
  const heard: unknown[] = [];
  listener.on('notification', (message) => heard.push(JSON.parse(message.payload!)));
  try {
    await listener.query(`LISTEN ${QUEUE_CHANNEL}`);
    await writeQueue(pool, { threadId: 'n', origin: 'host-a', submissions: ['a'], expectedVersion: 0 });
    await writeQueue(pool, { threadId: 'n', origin: 'host-b', submissions: ['b'], expectedVersion: 0 });
    await removeQueue(pool, { threadId: 'n', origin: 'host-b' });
    await removeQueue(pool, { threadId: 'n', origin: 'host-b' });
    // A round trip on the listener's connection: every notification sent before it has arrived.
    await listener.query('SELECT 1');
    expect(heard).toEqual([
      { threadId: 'n', origin: 'host-a' },
      { threadId: 'n', origin: 'host-b' },
    ]);
  } finally {
    await listener.end();
  }
});
