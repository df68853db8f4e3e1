// The fenced append on a real PostgreSQL: lines land at contiguous ordinals under the writer's
// epoch; a writer whose epoch was overtaken, whose ordinal is stale, or whose lease lapsed
// writes nothing at all.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { appendLines, appendState, cutBackAppend } from '../../src/common/postgres/fenced-append.js';
import { PostgresDeadlineError } from '../../src/common/postgres/postgres-connection.js';
import { registerHost } from '../../src/common/postgres/host-lease.js';
import { acquireThread } from '../../src/common/postgres/thread-ownership.js';
import { migratedStore } from '../helpers/test-database.js';

const LEASE_MS = 60_000;
let pool: pg.Pool;

beforeAll(async () => {
  ({ pool } = await migratedStore('append test', 8));
});
afterAll(async () => pool.end());

async function stored(threadId: string): Promise<Array<{ ordinal: number; epoch: number; line: string }>> {
  const result = await pool.query<{ ordinal: string; epoch: string; line: string }>(
    `SELECT ordinal, epoch, line FROM rollout_lines WHERE thread_id = $1 ORDER BY ordinal`,
    [threadId],
  );
  return result.rows.map((row) => ({ ordinal: Number(row.ordinal), epoch: Number(row.epoch), line: row.line }));
}

async function thread(threadId: string): Promise<{ updated_at: Date; head_end: string | null }> {
  return (await pool.query(`SELECT updated_at, head_end FROM threads WHERE thread_id = $1`, [threadId])).rows[0];
}

async function owned(threadId: string, endpoint: string, leaseMs = LEASE_MS): Promise<{ hostId: string; epoch: number }> {
  const hostId = await registerHost(pool, endpoint, leaseMs);
  const acquired = await acquireThread(pool, { threadId, hostId, create: true });
  if (acquired.kind !== 'acquired') throw new Error(`not acquired: ${acquired.kind}`);
  return { hostId, epoch: acquired.epoch };
}

describe('appendLines', () => {
  test('a turn\'s last lines store its read receipt in the same statement, keeping an earlier first unread turn', async () => {
    const { epoch } = await owned('receipt', 'ws://127.0.0.1:3011');
    const receiptOf = async () => (await pool.query('SELECT read_first_unread AS first, read_revision AS revision, read_last_published_turn AS last FROM threads WHERE thread_id = $1', ['receipt'])).rows[0];
    expect(await appendLines(pool, { threadId: 'receipt', epoch, expectedNext: 0, lines: ['{"a":1}'] })).toEqual({ kind: 'appended', nextOrdinal: 1 });
    expect(await receiptOf()).toEqual({ first: null, revision: null, last: null });
    await appendLines(pool, { threadId: 'receipt', epoch, expectedNext: 1, lines: ['{"b":2}'], readReceipt: { turnId: 'turn-1', revision: 'rev-1' } });
    expect(await receiptOf()).toEqual({ first: { type: 'turn', turn_id: 'turn-1' }, revision: 'rev-1', last: 'turn-1' });
    await appendLines(pool, { threadId: 'receipt', epoch, expectedNext: 2, lines: ['{"c":3}'], readReceipt: { turnId: 'turn-2', revision: 'rev-2' } });
    expect(await receiptOf()).toEqual({ first: { type: 'turn', turn_id: 'turn-1' }, revision: 'rev-2', last: 'turn-2' });
    // A fenced append stores no receipt either.
    expect((await appendLines(pool, { threadId: 'receipt', epoch: epoch - 1, expectedNext: 3, lines: ['{"d":4}'], readReceipt: { turnId: 'turn-3', revision: 'rev-3' } })).kind).toBe('fenced');
    expect(await receiptOf()).toEqual({ first: { type: 'turn', turn_id: 'turn-1' }, revision: 'rev-2', last: 'turn-2' });
  });

  test('appends batches at contiguous ordinals and bumps updated_at in the same statement', async () => {
    const { hostId, epoch } = await owned('contiguous', 'ws://127.0.0.1:1');
    // Set back, so each append's bump shows whatever the clock's resolution.
    const setBack = () => pool.query(`UPDATE threads SET updated_at = 'epoch' WHERE thread_id = 'contiguous'`);
    const bumped = async () => (await thread('contiguous')).updated_at.getTime() > Date.UTC(2020, 0, 1);
    await setBack();
    expect(await appendLines(pool, { threadId: 'contiguous', hostId, epoch, expectedNext: 0, lines: ['{"a":0}', '{"a":1}'] })).toEqual({ kind: 'appended', nextOrdinal: 2 });
    expect(await bumped()).toBe(true);
    await setBack();
    expect(await appendLines(pool, { threadId: 'contiguous', hostId, epoch, expectedNext: 2, lines: ['{"a":2}', '{"a":3}', '{"a":4}'] })).toEqual({ kind: 'appended', nextOrdinal: 5 });
    expect(await bumped()).toBe(true);
    expect(await stored('contiguous')).toEqual([0, 1, 2, 3, 4].map((ordinal) => ({ ordinal, epoch: 1, line: `{"a":${ordinal}}` })));
    expect(await appendState(pool, 'contiguous')).toEqual({ epoch: 1, nextOrdinal: 5 });
  });

  test('after a takeover, the old epoch\'s append writes 0 rows, and the new owner goes on', async () => {
    const old = await owned('taken', 'ws://127.0.0.1:2', 300);
    expect(await appendLines(pool, { threadId: 'taken', hostId: old.hostId, epoch: old.epoch, expectedNext: 0, lines: ['{"by":"old"}'] })).toMatchObject({ kind: 'appended' });
    await pool.query(`SELECT pg_sleep(0.4)`);
    const next = await owned('taken', 'ws://127.0.0.1:3');
    expect(next.epoch).toBe(2);
    const before = await thread('taken');
    // White-box: the stale writer, without its host (so only the epoch fences it).
    expect(await appendLines(pool, { threadId: 'taken', epoch: old.epoch, expectedNext: 1, lines: ['{"by":"stale"}', '{"by":"stale"}'] })).toEqual({ kind: 'fenced', epochNow: 2, nextNow: 1 });
    expect(await stored('taken')).toEqual([{ ordinal: 0, epoch: 1, line: '{"by":"old"}' }]);
    expect((await thread('taken')).updated_at).toEqual(before.updated_at);
    expect(await appendLines(pool, { threadId: 'taken', hostId: next.hostId, epoch: 2, expectedNext: 1, lines: ['{"by":"new"}'] })).toEqual({ kind: 'appended', nextOrdinal: 2 });
    expect((await stored('taken')).map((row) => [row.ordinal, row.epoch])).toEqual([[0, 1], [1, 2]]);
  });

  test('a stale expected ordinal (a batch that already landed) is fenced, not duplicated', async () => {
    const { hostId, epoch } = await owned('twice', 'ws://127.0.0.1:4');
    const batch = { threadId: 'twice', hostId, epoch, expectedNext: 0, lines: ['{"n":1}'] };
    expect(await appendLines(pool, batch)).toEqual({ kind: 'appended', nextOrdinal: 1 });
    expect(await appendLines(pool, batch)).toEqual({ kind: 'fenced', epochNow: 1, nextNow: 1 });
    expect(await stored('twice')).toEqual([{ ordinal: 0, epoch: 1, line: '{"n":1}' }]);
  });

  test('concurrent batches at the same ordinal: exactly one lands', async () => {
    const { hostId, epoch } = await owned('raced', 'ws://127.0.0.1:10');
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) => appendLines(pool, { threadId: 'raced', hostId, epoch, expectedNext: 0, lines: [`{"writer":${i}}`, `{"writer":${i}}`] })),
    );
    const landed = outcomes.flatMap((outcome, i) => (outcome.kind === 'appended' ? [i] : []));
    expect(landed).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'fenced')).toEqual(Array(7).fill({ kind: 'fenced', epochNow: 1, nextNow: 2 }));
    expect(await stored('raced')).toEqual([0, 1].map((ordinal) => ({ ordinal, epoch: 1, line: `{"writer":${landed[0]}}` })));
  });

  test('a host whose lease lapsed writes nothing, even before another host takes over', async () => {
    const { hostId, epoch } = await owned('lapsed', 'ws://127.0.0.1:5', 200);
    await pool.query(`SELECT pg_sleep(0.3)`);
    expect(await appendLines(pool, { threadId: 'lapsed', hostId, epoch, expectedNext: 0, lines: ['{"late":true}'] })).toEqual({ kind: 'fenced', epochNow: 1, nextNow: 0 });
    expect(await stored('lapsed')).toEqual([]);
  });

  test('a host that released the thread writes nothing under the epoch it held', async () => {
    const { hostId, epoch } = await owned('released', 'ws://127.0.0.1:6');
    await pool.query(`UPDATE thread_owners SET owner_host = NULL WHERE thread_id = 'released'`);
    expect(await appendLines(pool, { threadId: 'released', hostId, epoch, expectedNext: 0, lines: ['{}'] })).toEqual({ kind: 'fenced', epochNow: 1, nextNow: 0 });
  });

  test('records where the head ends: the first user message, legacy or paginated', async () => {
    const legacy = await owned('head-legacy', 'ws://127.0.0.1:7');
    const meta = '{"type":"session_meta","payload":{}}';
    await appendLines(pool, { threadId: 'head-legacy', ...legacy, expectedNext: 0, lines: [meta, '{"type":"turn_context","payload":{}}'] });
    expect((await thread('head-legacy')).head_end).toBeNull();
    const user = '{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}';
    await appendLines(pool, { threadId: 'head-legacy', ...legacy, expectedNext: 2, lines: ['{"type":"response_item","payload":{}}', user, user] });
    expect((await thread('head-legacy')).head_end).toBe('4');
    await appendLines(pool, { threadId: 'head-legacy', ...legacy, expectedNext: 5, lines: [user] });
    expect((await thread('head-legacy')).head_end).toBe('4');

    const paginated = await owned('head-paginated', 'ws://127.0.0.1:8');
    const started = '{"type":"item_started","payload":{"item":{"type":"UserMessage"}}}';
    const completed = '{"type":"item_completed","payload":{"item":{"type":"UserMessage"}}}';
    await appendLines(pool, { threadId: 'head-paginated', ...paginated, expectedNext: 0, lines: [meta, started, completed] });
    expect((await thread('head-paginated')).head_end).toBe('3');
  });

  test('refuses a line holding a newline before sending anything', async () => {
    const { hostId, epoch } = await owned('newline', 'ws://127.0.0.1:9');
    await expect(appendLines(pool, { threadId: 'newline', hostId, epoch, expectedNext: 0, lines: ['{}\n{}'] })).rejects.toThrow(
      'postgres: a rollout line of thread newline holds a newline',
    );
    expect(await appendState(pool, 'newline')).toEqual({ epoch: 1, nextOrdinal: 0 });
    expect(await appendState(pool, 'no-such-thread')).toBeNull();
  });

  test('an append past its deadline may still land; a cut-back by its writer removes it, by anyone else nothing', async () => {
    const { hostId, epoch } = await owned('ambiguous', 'ws://127.0.0.1:11');
    const request = { threadId: 'ambiguous', hostId, epoch, expectedNext: 0, lines: ['{"late":1}', '{"late":2}'] };
    // Another session holds the thread's row, so the append waits on the server past its deadline.
    const blocker = await pool.connect();
    try {
      await blocker.query(`BEGIN; SELECT 1 FROM thread_owners WHERE thread_id = 'ambiguous' FOR UPDATE`);
      await expect(appendLines(pool, request, { deadlineMs: 200 })).rejects.toBeInstanceOf(PostgresDeadlineError);
      await blocker.query('COMMIT');
    } finally {
      blocker.release();
    }
    // The server still runs the statement its client gave up on.
    let state = await appendState(pool, 'ambiguous');
    for (let i = 0; i < 100 && state?.nextOrdinal === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = await appendState(pool, 'ambiguous');
    }
    expect([state, await stored('ambiguous')]).toEqual([{ epoch: 1, nextOrdinal: 2 }, [{ ordinal: 0, epoch: 1, line: '{"late":1}' }, { ordinal: 1, epoch: 1, line: '{"late":2}' }]]);
    // Another epoch changes nothing; the writer's own puts the thread back where it knows it was.
    expect(await cutBackAppend(pool, { threadId: 'ambiguous', epoch: 2, from: 0 })).toBe('fenced');
    expect([await appendState(pool, 'ambiguous'), (await stored('ambiguous')).length]).toEqual([{ epoch: 1, nextOrdinal: 2 }, 2]);
    expect(await cutBackAppend(pool, { threadId: 'ambiguous', epoch, from: 0 })).toBe('cutBack');
    expect([await appendState(pool, 'ambiguous'), await stored('ambiguous')]).toEqual([{ epoch: 1, nextOrdinal: 0 }, []]);
    expect(await cutBackAppend(pool, { threadId: 'no-such-thread', epoch, from: 0 })).toBe('fenced');
  });
});
