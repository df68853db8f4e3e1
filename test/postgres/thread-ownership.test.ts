// Thread ownership on a real PostgreSQL: acquisition storms, takeover only once the owner's
// lease lapsed by the database's clock, release letting the next host in at once.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { registerHost, renewHost, retireHost } from '../../src/common/postgres/host-lease.js';
import { archiveThread } from '../../src/common/postgres/thread-changes.js';
import { acquireThread, ownerOf, releaseThread } from '../../src/common/postgres/thread-ownership.js';
import { migratedStore } from '../helpers/test-database.js';

const LONG_LEASE_MS = 60_000;
let pool: pg.Pool;

beforeAll(async () => {
  ({ pool } = await migratedStore('ownership test', 20));
});
afterAll(async () => pool.end());

/** Sleeps on the database, so the lapse below is the database clock's. */
const databaseSleep = (ms: number) => pool.query(`SELECT pg_sleep($1)`, [ms / 1000]);

describe('acquireThread', () => {
  test('creates a thread at epoch 1 only when asked to', async () => {
    const host = await registerHost(pool, 'ws://127.0.0.1:1001', LONG_LEASE_MS);
    expect(await acquireThread(pool, { threadId: 'fresh-1', hostId: host, create: false })).toEqual({ kind: 'notFound' });
    expect(await ownerOf(pool, 'fresh-1')).toBeNull();
    expect(await acquireThread(pool, { threadId: 'fresh-1', hostId: host, create: true, historyMode: 'paginated' })).toEqual({
      kind: 'acquired',
      epoch: 1,
      nextOrdinal: 0,
      historyMode: 'paginated',
    });
    expect(await ownerOf(pool, 'fresh-1')).toEqual({ epoch: 1, ownerHost: host, endpoint: 'ws://127.0.0.1:1001', ownerLive: true, nextOrdinal: 0, archived: false });
  });

  test('a storm of hosts: one winner per round, epochs 1, 2, 3, …', async () => {
    const hosts = await Promise.all(Array.from({ length: 12 }, (_, i) => registerHost(pool, `ws://127.0.0.1:${2000 + i}`, LONG_LEASE_MS)));
    const winners: string[] = [];
    const epochs: number[] = [];
    for (let round = 0; round < 8; round += 1) {
      const outcomes = await Promise.all(hosts.map((hostId) => acquireThread(pool, { threadId: 'stormy', hostId, create: true, historyMode: 'legacy' })));
      const won = outcomes.flatMap((outcome, i) => (outcome.kind === 'acquired' ? [{ host: hosts[i]!, epoch: outcome.epoch }] : []));
      expect(won).toHaveLength(1);
      const winner = won[0]!;
      // Every loser is told who holds it and where.
      const lost = outcomes.filter((outcome) => outcome.kind !== 'acquired');
      expect(lost).toEqual(Array(hosts.length - 1).fill({ kind: 'ownedElsewhere', ownerHost: winner.host, endpoint: `ws://127.0.0.1:${2000 + hosts.indexOf(winner.host)}` }));
      winners.push(winner.host);
      epochs.push(winner.epoch);
      expect(await releaseThread(pool, { threadId: 'stormy', hostId: winner.host, epoch: winner.epoch })).toBe(true);
    }
    expect(epochs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('a storm over many threads at once: exactly one winner per thread', async () => {
    const hosts = await Promise.all(Array.from({ length: 10 }, (_, i) => registerHost(pool, `ws://127.0.0.1:${2500 + i}`, LONG_LEASE_MS)));
    const threads = Array.from({ length: 30 }, (_, i) => `crowded-${i}`);
    const attempts = threads.flatMap((threadId) => hosts.map((hostId) => ({ threadId, hostId })));
    const outcomes = await Promise.all(attempts.map((attempt) => acquireThread(pool, { ...attempt, create: true })));
    const winners = new Map<string, string[]>();
    outcomes.forEach((outcome, i) => {
      if (outcome.kind === 'acquired') winners.set(attempts[i]!.threadId, [...(winners.get(attempts[i]!.threadId) ?? []), attempts[i]!.hostId]);
    });
    expect([...winners.keys()].sort()).toEqual([...threads].sort());
    expect([...winners.values()].every((won) => won.length === 1)).toBe(true);
    for (const threadId of threads) expect(await ownerOf(pool, threadId)).toMatchObject({ epoch: 1, ownerHost: winners.get(threadId)![0] });
  });

  test('takes a thread over only after its owner\'s lease lapsed, by the database clock', async () => {
    const owner = await registerHost(pool, 'ws://127.0.0.1:3001', 400);
    const next = await registerHost(pool, 'ws://127.0.0.1:3002', LONG_LEASE_MS);
    expect(await acquireThread(pool, { threadId: 'leased', hostId: owner, create: true })).toMatchObject({ kind: 'acquired', epoch: 1 });
    expect(await acquireThread(pool, { threadId: 'leased', hostId: next, create: false })).toEqual({ kind: 'ownedElsewhere', ownerHost: owner, endpoint: 'ws://127.0.0.1:3001' });
    await databaseSleep(500);
    expect(await renewHost(pool, owner, 400)).toBe('lapsed');
    expect(await acquireThread(pool, { threadId: 'leased', hostId: next, create: false })).toEqual({ kind: 'acquired', epoch: 2, nextOrdinal: 0, historyMode: null });
    // The former owner's release of its old epoch changes nothing.
    expect(await releaseThread(pool, { threadId: 'leased', hostId: owner, epoch: 1 })).toBe(false);
    expect(await ownerOf(pool, 'leased')).toMatchObject({ epoch: 2, ownerHost: next, ownerLive: true });
  });

  test('a renewed lease keeps the thread past its first term', async () => {
    const owner = await registerHost(pool, 'ws://127.0.0.1:4001', 600);
    const other = await registerHost(pool, 'ws://127.0.0.1:4002', LONG_LEASE_MS);
    await acquireThread(pool, { threadId: 'renewed', hostId: owner, create: true });
    for (let i = 0; i < 4; i += 1) {
      await databaseSleep(250);
      expect(await renewHost(pool, owner, 600)).toBe('renewed');
    }
    expect(await acquireThread(pool, { threadId: 'renewed', hostId: other, create: false })).toMatchObject({ kind: 'ownedElsewhere', ownerHost: owner });
  });

  test('a release lets the next host in at once; a retired host releases all of its threads', async () => {
    const first = await registerHost(pool, 'ws://127.0.0.1:5001', LONG_LEASE_MS);
    const second = await registerHost(pool, 'ws://127.0.0.1:5002', LONG_LEASE_MS);
    await acquireThread(pool, { threadId: 'handed-a', hostId: first, create: true });
    await acquireThread(pool, { threadId: 'handed-b', hostId: first, create: true });
    expect(await releaseThread(pool, { threadId: 'handed-a', hostId: first, epoch: 1 })).toBe(true);
    expect(await acquireThread(pool, { threadId: 'handed-a', hostId: second, create: false })).toMatchObject({ kind: 'acquired', epoch: 2 });
    await retireHost(pool, first);
    expect(await ownerOf(pool, 'handed-b')).toEqual({ epoch: 1, ownerHost: null, endpoint: null, ownerLive: false, nextOrdinal: 0, archived: false });
    expect(await acquireThread(pool, { threadId: 'handed-b', hostId: second, create: false })).toMatchObject({ kind: 'acquired', epoch: 2 });
  });

  test('the owner acquiring again gets a new epoch, fencing its own earlier writer', async () => {
    const host = await registerHost(pool, 'ws://127.0.0.1:6001', LONG_LEASE_MS);
    expect(await acquireThread(pool, { threadId: 'again', hostId: host, create: true })).toMatchObject({ kind: 'acquired', epoch: 1 });
    expect(await acquireThread(pool, { threadId: 'again', hostId: host, create: false })).toMatchObject({ kind: 'acquired', epoch: 2 });
  });

  test('a thread archived between a lookup and the acquisition is not taken, unless archived threads are asked for', async () => {
    const archiving = await registerHost(pool, 'ws://127.0.0.1:7001', LONG_LEASE_MS);
    const resuming = await registerHost(pool, 'ws://127.0.0.1:7002', LONG_LEASE_MS);
    const held = await acquireThread(pool, { threadId: 'archived-meanwhile', hostId: archiving, create: true, historyMode: 'legacy' });
    if (held.kind !== 'acquired') throw new Error(`not acquired: ${held.kind}`);
    // The resuming host's lookup saw the thread live; the other host archives and lets it go.
    expect(await archiveThread(pool, { threadId: 'archived-meanwhile', hostId: archiving, epoch: held.epoch })).toBe(true);
    expect(await releaseThread(pool, { threadId: 'archived-meanwhile', hostId: archiving, epoch: held.epoch })).toBe(true);
    expect(await acquireThread(pool, { threadId: 'archived-meanwhile', hostId: resuming, create: false })).toEqual({ kind: 'archived' });
    expect(await ownerOf(pool, 'archived-meanwhile')).toEqual({ epoch: 1, ownerHost: null, endpoint: null, ownerLive: false, nextOrdinal: 0, archived: true });
    expect(await acquireThread(pool, { threadId: 'archived-meanwhile', hostId: resuming, create: false, takeArchived: true })).toEqual({
      kind: 'acquired',
      epoch: 2,
      nextOrdinal: 0,
      historyMode: 'legacy',
    });
  });

  test('an archived thread a live host holds (archiving it) is answered archived, not owned elsewhere', async () => {
    const archiving = await registerHost(pool, 'ws://127.0.0.1:7003', LONG_LEASE_MS);
    const resuming = await registerHost(pool, 'ws://127.0.0.1:7004', LONG_LEASE_MS);
    const held = await acquireThread(pool, { threadId: 'being-archived', hostId: archiving, create: true, historyMode: 'legacy' });
    if (held.kind !== 'acquired') throw new Error(`not acquired: ${held.kind}`);
    expect(await archiveThread(pool, { threadId: 'being-archived', hostId: archiving, epoch: held.epoch })).toBe(true);
    expect(await acquireThread(pool, { threadId: 'being-archived', hostId: resuming, create: false })).toEqual({ kind: 'archived' });
    expect(await acquireThread(pool, { threadId: 'being-archived', hostId: resuming, create: false, takeArchived: true })).toEqual({
      kind: 'ownedElsewhere',
      ownerHost: archiving,
      endpoint: 'ws://127.0.0.1:7003',
    });
  });
});
