// What clients change of a stored thread besides its history, on a real PostgreSQL
// (src/common/postgres/thread-changes.ts): names, archiving and deletion; the last two only
// under the ownership (owner and epoch) the caller acquired, never under one fenced out since.
import type pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { registerHost } from '../../src/common/postgres/host-lease.js';
import { acquireThread } from '../../src/common/postgres/thread-ownership.js';
import { archiveThread, deleteThread, renameThread, storedThreadState, unarchiveThread, type HeldThread } from '../../src/common/postgres/thread-changes.js';
import { migratedStore } from '../helpers/test-database.js';

/** A thread's read state and metadata before any client set them. */
const UNSET = { receipt: { firstUnread: null, revision: null, lastPublishedTurn: null }, metadata: { gitInfo: null, daybreakEnabled: null } };

const LONG_LEASE_MS = 60_000;
let pool: pg.Pool;
let hostId: string;

beforeAll(async () => {
  ({ pool } = await migratedStore('thread changes test', 4));
  hostId = await registerHost(pool, 'ws://127.0.0.1:3001', LONG_LEASE_MS);
});
afterAll(async () => pool.end());

/** A thread created and held by this test's host, with `lines` records stored. */
async function heldThread(threadId: string, lines: number): Promise<HeldThread> {
  const acquired = await acquireThread(pool, { threadId, hostId, create: true, historyMode: 'legacy' });
  if (acquired.kind !== 'acquired') throw new Error(`not acquired: ${acquired.kind}`);
  for (let ordinal = 0; ordinal < lines; ordinal += 1) {
    await pool.query('INSERT INTO rollout_lines (thread_id, ordinal, epoch, line) VALUES ($1, $2, $3, $4)', [threadId, ordinal, acquired.epoch, `{"line":${ordinal}}`]);
  }
  return { threadId, hostId, epoch: acquired.epoch };
}

/** The same thread taken again by its host: the epoch moves on, fencing out `held`. */
async function takenAgain(held: HeldThread): Promise<HeldThread> {
  const acquired = await acquireThread(pool, { threadId: held.threadId, hostId, create: false });
  if (acquired.kind !== 'acquired') throw new Error(`not acquired: ${acquired.kind}`);
  return { ...held, epoch: acquired.epoch };
}

const rowsOf = async (threadId: string) => {
  const counts = await pool.query<{ threads: string; owners: string; lines: string }>(
    `SELECT (SELECT count(*) FROM threads WHERE thread_id = $1) AS threads, (SELECT count(*) FROM thread_owners WHERE thread_id = $1) AS owners,
            (SELECT count(*) FROM rollout_lines WHERE thread_id = $1) AS lines`,
    [threadId],
  );
  const row = counts.rows[0]!;
  return { threads: Number(row.threads), owners: Number(row.owners), lines: Number(row.lines) };
};

test('a thread\'s state: none, started but not written, written; names set on a thread that exists', async () => {
  expect(await storedThreadState(pool, 'state-1')).toBeNull();
  expect(await renameThread(pool, 'state-1', 'nobody')).toBe(false);
  await heldThread('state-1', 0);
  expect(await storedThreadState(pool, 'state-1')).toEqual({ name: null, archived: false, written: false, ...UNSET });
  await heldThread('state-2', 2);
  expect(await renameThread(pool, 'state-2', 'named')).toBe(true);
  expect(await renameThread(pool, 'state-2', 'renamed')).toBe(true);
  expect([await storedThreadState(pool, 'state-1'), await storedThreadState(pool, 'state-2')]).toEqual([
    { name: null, archived: false, written: false, ...UNSET },
    { name: 'renamed', archived: false, written: true, ...UNSET },
  ]);
});

test('archiving needs the current ownership; unarchiving answers the name and moves the update time', async () => {
  const stale = await heldThread('archived-1', 1);
  const held = await takenAgain(stale);
  expect(await archiveThread(pool, stale)).toBe(false);
  expect(await archiveThread(pool, { ...held, hostId: await registerHost(pool, 'ws://127.0.0.1:3002', LONG_LEASE_MS) })).toBe(false);
  expect((await storedThreadState(pool, 'archived-1'))?.archived).toBe(false);
  expect([await archiveThread(pool, held), await archiveThread(pool, held)]).toEqual([true, false]);
  expect((await storedThreadState(pool, 'archived-1'))?.archived).toBe(true);
  await renameThread(pool, 'archived-1', 'kept while archived');
  await pool.query(`UPDATE threads SET updated_at = now() - interval '1 hour' WHERE thread_id = 'archived-1'`);
  expect([await unarchiveThread(pool, 'archived-1'), await unarchiveThread(pool, 'archived-1'), await unarchiveThread(pool, 'no-such-thread')]).toEqual([{ name: 'kept while archived' }, null, null]);
  const moved = await pool.query<{ recent: boolean }>(`SELECT updated_at > now() - interval '1 minute' AS recent FROM threads WHERE thread_id = 'archived-1'`);
  expect([moved.rows[0]!.recent, (await storedThreadState(pool, 'archived-1'))?.archived]).toEqual([true, false]);
});

test('deleting needs the current ownership, and removes the thread\'s rows only, all at once', async () => {
  const stale = await heldThread('deleted-1', 3);
  await heldThread('deleted-neighbour', 2);
  // An epoch nobody acquired is no ownership either.
  expect(await deleteThread(pool, { ...stale, epoch: stale.epoch + 1 })).toBe(false);
  const held = await takenAgain(stale);
  expect(await deleteThread(pool, stale)).toBe(false);
  expect(await rowsOf('deleted-1')).toEqual({ threads: 1, owners: 1, lines: 3 });
  expect([await deleteThread(pool, held), await deleteThread(pool, held)]).toEqual([true, false]);
  expect([await rowsOf('deleted-1'), await rowsOf('deleted-neighbour')]).toEqual([
    { threads: 0, owners: 0, lines: 0 },
    { threads: 1, owners: 1, lines: 2 },
  ]);
  expect(await storedThreadState(pool, 'deleted-1')).toBeNull();
});
