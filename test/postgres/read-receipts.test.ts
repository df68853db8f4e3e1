// Read states and metadata in the threads row, on a real PostgreSQL
// (src/common/postgres/read-receipts.ts, metadata-patches.ts): marks applied only at the
// revision expected, of two marks at one revision exactly one, turn ends keeping an earlier first
// unread turn, reverts, metadata patched field by field, and what fleet import brings adopted
// only where the row has none.
import type pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { registerHost } from '../../src/common/postgres/host-lease.js';
import { adoptMetadata, patchMetadata } from '../../src/common/postgres/metadata-patches.js';
import { adoptReceipt, markReceipt, recordRevert, recordTurnEnd } from '../../src/common/postgres/read-receipts.js';
import { acquireThread } from '../../src/common/postgres/thread-ownership.js';
import { migratedStore } from '../helpers/test-database.js';

let pool: pg.Pool;
let hostId: string;

beforeAll(async () => {
  ({ pool } = await migratedStore('read receipts test', 6));
  hostId = await registerHost(pool, 'ws://127.0.0.1:3001', 60_000);
});
afterAll(async () => pool.end());

async function thread(threadId: string): Promise<void> {
  const acquired = await acquireThread(pool, { threadId, hostId, create: true, historyMode: 'legacy' });
  if (acquired.kind !== 'acquired') throw new Error(`not acquired: ${acquired.kind}`);
}

const read = (expectedRevision: string, newRevision: string) => ({ firstUnread: null, expectedRevision, initialRevision: 'initial:r', newRevision });
const unread = (expectedRevision: string, newRevision: string) => ({ firstUnread: { type: 'thread_start' as const }, expectedRevision, initialRevision: 'initial:r', newRevision });

test('a mark applies at the revision expected (the initial one before any), else answers the receipt as it is', async () => {
  await thread('r');
  expect(await markReceipt(pool, 'no-such-thread', read('initial:r', 'rev-0'))).toBeNull();
  expect(await markReceipt(pool, 'r', read('stale', 'rev-0'))).toEqual({ changed: false, receipt: { firstUnread: null, revision: null, lastPublishedTurn: null } });
  expect(await markReceipt(pool, 'r', unread('initial:r', 'rev-1'))).toEqual({
    changed: true,
    receipt: { firstUnread: { type: 'thread_start' }, revision: 'rev-1', lastPublishedTurn: null },
  });
  expect(await markReceipt(pool, 'r', read('initial:r', 'rev-2'))).toEqual({
    changed: false,
    receipt: { firstUnread: { type: 'thread_start' }, revision: 'rev-1', lastPublishedTurn: null },
  });
  // Two marks at one revision, at once: exactly one applies, the other answers the winner's receipt.
  const raced = await Promise.all([markReceipt(pool, 'r', read('rev-1', 'rev-a')), markReceipt(pool, 'r', unread('rev-1', 'rev-b'))]);
  const won = raced.filter((outcome) => outcome!.changed);
  const lost = raced.filter((outcome) => !outcome!.changed);
  expect([won.length, lost.length, lost[0]!.receipt]).toEqual([1, 1, won[0]!.receipt]);
});

test('a turn end keeps an earlier first unread turn; a revert leaves read only a first unread turn it dropped', async () => {
  await thread('t');
  expect(await recordTurnEnd(pool, 'no-such-thread', 'turn-1', 'rev-0')).toBeNull();
  expect(await recordTurnEnd(pool, 't', 'turn-1', 'rev-1')).toEqual({ firstUnread: { type: 'turn', turn_id: 'turn-1' }, revision: 'rev-1', lastPublishedTurn: 'turn-1' });
  expect(await recordTurnEnd(pool, 't', 'turn-2', 'rev-2')).toEqual({ firstUnread: { type: 'turn', turn_id: 'turn-1' }, revision: 'rev-2', lastPublishedTurn: 'turn-2' });
  expect(await recordRevert(pool, 't', ['turn-1'], 'rev-3')).toBeNull();
  expect(await recordRevert(pool, 't', [], 'rev-3')).toEqual({ firstUnread: null, revision: 'rev-3', lastPublishedTurn: 'turn-2' });
  expect(await recordRevert(pool, 't', [], 'rev-4')).toBeNull();
  expect(await recordTurnEnd(pool, 't', 'turn-3', 'rev-5')).toEqual({ firstUnread: { type: 'turn', turn_id: 'turn-3' }, revision: 'rev-5', lastPublishedTurn: 'turn-3' });
});

test('metadata patches apply field by field; clearing every Git field leaves none', async () => {
  await thread('m');
  expect(await patchMetadata(pool, 'no-such-thread', { gitInfo: { sha: 'a' }, daybreakEnabled: null })).toBeNull();
  expect(await patchMetadata(pool, 'm', { gitInfo: { sha: 'a', branch: 'main' }, daybreakEnabled: null })).toEqual({ gitInfo: { sha: 'a', branch: 'main' }, daybreakEnabled: null });
  expect(await patchMetadata(pool, 'm', { gitInfo: null, daybreakEnabled: false })).toEqual({ gitInfo: { sha: 'a', branch: 'main' }, daybreakEnabled: false });
  expect(await patchMetadata(pool, 'm', { gitInfo: { branch: null, origin_url: 'u' }, daybreakEnabled: null })).toEqual({ gitInfo: { sha: 'a', origin_url: 'u' }, daybreakEnabled: false });
  expect(await patchMetadata(pool, 'm', { gitInfo: { sha: null, origin_url: null }, daybreakEnabled: true })).toEqual({ gitInfo: null, daybreakEnabled: true });
});

test('an imported receipt is adopted only while none is recorded, with its last published turn', async () => {
  await thread('adopt-r');
  const home = { firstUnread: { type: 'turn' as const, turn_id: 't-1' }, revision: 'home-rev', lastPublishedTurn: 't-1' };
  expect(await adoptReceipt(pool, 'no-such-thread', home)).toBeNull();
  expect(await adoptReceipt(pool, 'adopt-r', home)).toEqual({ changed: true, receipt: home });
  // Again, or another one: the receipt recorded stays.
  expect(await adoptReceipt(pool, 'adopt-r', { ...home, revision: 'other' })).toEqual({ changed: false, receipt: home });
  await thread('adopt-marked');
  expect((await markReceipt(pool, 'adopt-marked', read('initial:r', 'host-rev')))?.changed).toBe(true);
  expect(await adoptReceipt(pool, 'adopt-marked', home)).toEqual({ changed: false, receipt: { firstUnread: null, revision: 'host-rev', lastPublishedTurn: null } });
});

test('imported metadata is adopted only while none is set, its null Git members left out', async () => {
  await thread('adopt-m');
  const home = { gitInfo: { sha: 'abc', branch: 'main', origin_url: null }, daybreakEnabled: null };
  expect(await adoptMetadata(pool, 'no-such-thread', home)).toBeNull();
  expect(await adoptMetadata(pool, 'adopt-m', home)).toEqual({ changed: true, metadata: { gitInfo: { sha: 'abc', branch: 'main' }, daybreakEnabled: null } });
  expect(await adoptMetadata(pool, 'adopt-m', { gitInfo: null, daybreakEnabled: true })).toEqual({ changed: false, metadata: { gitInfo: { sha: 'abc', branch: 'main' }, daybreakEnabled: null } });
  await thread('adopt-patched');
  await patchMetadata(pool, 'adopt-patched', { gitInfo: null, daybreakEnabled: false });
  expect(await adoptMetadata(pool, 'adopt-patched', home)).toEqual({ changed: false, metadata: { gitInfo: null, daybreakEnabled: false } });
});
