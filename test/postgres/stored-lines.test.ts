// Reading the store: a rollout as its file's bytes, and thread/list's pages with each head.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { appendLines } from '../../src/common/postgres/fenced-append.js';
import { registerHost } from '../../src/common/postgres/host-lease.js';
import { listThreads, readRolloutText, type ListQuery } from '../../src/common/postgres/stored-lines.js';
import { acquireThread } from '../../src/common/postgres/thread-ownership.js';
import { migratedStore } from '../helpers/test-database.js';

/** A thread's read state and metadata before any client set them. */
const UNSET = { receipt: { firstUnread: null, revision: null, lastPublishedTurn: null }, metadata: { gitInfo: null, daybreakEnabled: null } };

let pool: pg.Pool;
let hostId: string;

beforeAll(async () => {
  ({ pool } = await migratedStore('stored lines test'));
  hostId = await registerHost(pool, 'ws://127.0.0.1:1', 60_000);
});
afterAll(async () => pool.end());

const META = '{"type":"session_meta","payload":{"id":"x"}}';
const CONTEXT = '{"type":"turn_context","payload":{}}';
const USER = '{"type":"event_msg","payload":{"type":"user_message","message":"héllo ✓"}}';
const REPLY = '{"type":"event_msg","payload":{"type":"agent_message","message":"ok"}}';

async function threadWith(threadId: string, lines: string[], createdAtMs: number, rolloutName: string | null = null): Promise<void> {
  const acquired = await acquireThread(pool, { threadId, hostId, create: true, historyMode: 'legacy', createdAtMs, rolloutName });
  if (acquired.kind !== 'acquired') throw new Error(acquired.kind);
  if (lines.length > 0) await appendLines(pool, { threadId, hostId, epoch: acquired.epoch, expectedNext: 0, lines });
}

describe('readRolloutText', () => {
  test('the lines joined as the file holds them, from an ordinal on; null for no thread', async () => {
    await threadWith('read-me', [META, USER, REPLY], Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(await readRolloutText(pool, 'read-me')).toBe(`${META}\n${USER}\n${REPLY}\n`);
    expect(await readRolloutText(pool, 'read-me', { fromOrdinal: 2 })).toBe(`${REPLY}\n`);
    expect(await readRolloutText(pool, 'read-me', { fromOrdinal: 3 })).toBe('');
    await threadWith('empty', [], Date.UTC(2026, 0, 2));
    expect(await readRolloutText(pool, 'empty')).toBe('');
    expect(await readRolloutText(pool, 'nobody')).toBeNull();
  });
});

describe('listThreads', () => {
  const ids = (rows: Array<{ threadId: string }>) => rows.map((row) => row.threadId);
  const base: ListQuery = { archived: false, byCreation: true, direction: -1, after: null, limit: 100 };
  let listed: (query: Partial<ListQuery>) => Promise<string[]>;

  beforeAll(async () => {
    await pool.query(`DELETE FROM threads`);
    const second = Date.UTC(2026, 4, 1, 12, 0, 0);
    // Two threads in the same second: the id breaks the tie.
    await threadWith('list-b', [META, CONTEXT, USER, REPLY, USER], second, 'rollout-2026-05-01T12-00-00-b.jsonl');
    await threadWith('list-a', [META, USER], second);
    await threadWith('list-c', [META, CONTEXT], second + 1_000);
    await threadWith('list-old', [META, USER], second - 60_000);
    await threadWith('list-archived', [META, USER], second + 2_000);
    await pool.query(`UPDATE threads SET archived_at = now() WHERE thread_id = 'list-archived'`);
    // Update times set outright, with a tie at the millisecond.
    const at = (ms: number) => `timestamptz 'epoch' + ${ms} * interval '1 millisecond'`;
    await pool.query(`UPDATE threads SET updated_at = CASE thread_id
      WHEN 'list-a' THEN ${at(second + 5_005)} WHEN 'list-b' THEN ${at(second + 5_005)}
      WHEN 'list-c' THEN ${at(second + 4_000)} ELSE ${at(second + 9_000)} END`);
    listed = async (query) => ids(await listThreads(pool, { ...base, ...query }));
  });

  test('by creation, newest first, the id breaking ties; ascending the other way round', async () => {
    expect(await listed({})).toEqual(['list-c', 'list-b', 'list-a', 'list-old']);
    expect(await listed({ direction: 1 })).toEqual(['list-old', 'list-a', 'list-b', 'list-c']);
    expect(await listed({ archived: true })).toEqual(['list-archived']);
  });

  test('by update time, to the millisecond', async () => {
    expect(await listed({ byCreation: false })).toEqual(['list-old', 'list-b', 'list-a', 'list-c']);
  });

  test('pages strictly after a cursor: the last row\'s time and id, or a time alone', async () => {
    const second = Date.UTC(2026, 4, 1, 12, 0, 0);
    expect(await listed({ after: { at: second, id: 'list-b' }, limit: 1 })).toEqual(['list-a']);
    expect(await listed({ after: { at: second, id: 'list-b' } })).toEqual(['list-a', 'list-old']);
    expect(await listed({ after: { at: second, id: null } })).toEqual(['list-old']);
    expect(await listed({ after: { at: second, id: 'list-a' }, direction: 1 })).toEqual(['list-b', 'list-c']);
    expect(await listed({ byCreation: false, after: { at: second + 5_005, id: 'list-b' } })).toEqual(['list-a', 'list-c']);
  });

  test('each row has its head: up to the first user message, or every line while none came', async () => {
    const rows = await listThreads(pool, { ...base, limit: 3 });
    expect(rows).toEqual([
      { threadId: 'list-c', createdAtMs: Date.UTC(2026, 4, 1, 12, 0, 1), updatedAtMs: Date.UTC(2026, 4, 1, 12, 0, 4), historyMode: 'legacy', name: null, archivedAtMs: null, rolloutName: null, head: [META, CONTEXT], headWhole: false, ...UNSET, firstPreview: null },
      { threadId: 'list-b', createdAtMs: Date.UTC(2026, 4, 1, 12, 0, 0), updatedAtMs: Date.UTC(2026, 4, 1, 12, 0, 5) + 5, historyMode: 'legacy', name: null, archivedAtMs: null, rolloutName: 'rollout-2026-05-01T12-00-00-b.jsonl', head: [META, CONTEXT, USER], headWhole: true, ...UNSET, firstPreview: null },
      { threadId: 'list-a', createdAtMs: Date.UTC(2026, 4, 1, 12, 0, 0), updatedAtMs: Date.UTC(2026, 4, 1, 12, 0, 5) + 5, historyMode: 'legacy', name: null, archivedAtMs: null, rolloutName: null, head: [META, USER], headWhole: true, ...UNSET, firstPreview: null },
    ]);
  });
});
