// A revert's replacement of a thread's history on a real PostgreSQL
// (src/common/postgres/reverted-history.ts): the rows become exactly the new history, shorter or
// longer, with the thread's new time, name and head; the first preview is kept from the first
// replacement on; a writer whose epoch was overtaken changes nothing.
import type pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { appendLines, appendState } from '../../src/common/postgres/fenced-append.js';
import { registerHost } from '../../src/common/postgres/host-lease.js';
import { replaceHistory } from '../../src/common/postgres/reverted-history.js';
import { acquireThread } from '../../src/common/postgres/thread-ownership.js';
import { migratedStore } from '../helpers/test-database.js';

let pool: pg.Pool;
let hostId: string;

beforeAll(async () => {
  ({ pool } = await migratedStore('reverted history test', 4));
  hostId = await registerHost(pool, 'ws://127.0.0.1:1', 60_000);
});
afterAll(async () => pool.end());

const USER = '{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}';

async function held(threadId: string, lines: string[]): Promise<number> {
  const acquired = await acquireThread(pool, { threadId, hostId, create: true, historyMode: 'paginated' });
  if (acquired.kind !== 'acquired') throw new Error(`not acquired: ${acquired.kind}`);
  await appendLines(pool, { threadId, hostId, epoch: acquired.epoch, expectedNext: 0, lines });
  return acquired.epoch;
}

async function rowsOf(threadId: string) {
  const lines = await pool.query<{ ordinal: string; epoch: string; line: string }>('SELECT ordinal, epoch, line FROM rollout_lines WHERE thread_id = $1 ORDER BY ordinal', [threadId]);
  const thread = await pool.query<{ created_ms: string; rollout_name: string | null; head_end: string | null; first_preview: string | null }>(
    `SELECT floor(extract(epoch FROM created_at) * 1000)::bigint AS created_ms, rollout_name, head_end, first_preview FROM threads WHERE thread_id = $1`,
    [threadId],
  );
  const row = thread.rows[0]!;
  return {
    lines: lines.rows.map((line) => [Number(line.ordinal), Number(line.epoch), line.line]),
    createdMs: Number(row.created_ms),
    rolloutName: row.rollout_name,
    headEnd: row.head_end === null ? null : Number(row.head_end),
    firstPreview: row.first_preview,
  };
}

const replacement = (threadId: string, epoch: number, lines: string[], previousPreview: string) => ({
  threadId,
  hostId,
  epoch,
  lines,
  createdAtMs: Date.UTC(2026, 11, 5, 3, 0, 0, 123),
  rolloutName: `rollout-2026-12-05T03-00-00-${threadId}_f.jsonl`,
  previousPreview,
});

test('the rows become the new history, shorter or longer, with the new time, name and head', async () => {
  const epoch = await held('shorter', ['{"m":0}', USER, '{"a":2}', '{"a":3}', '{"a":4}']);
  expect(await replaceHistory(pool, replacement('shorter', epoch, ['{"new":0}', '{"m":0}'], 'hi'))).toBe('replaced');
  expect(await rowsOf('shorter')).toEqual({
    lines: [
      [0, epoch, '{"new":0}'],
      [1, epoch, '{"m":0}'],
    ],
    createdMs: Date.UTC(2026, 11, 5, 3, 0, 0, 123),
    rolloutName: 'rollout-2026-12-05T03-00-00-shorter_f.jsonl',
    headEnd: null,
    firstPreview: 'hi',
  });
  expect(await appendState(pool, 'shorter')).toEqual({ epoch, nextOrdinal: 2 });
  // Replaced again (the history then shows another first message): the first one stays.
  expect(await replaceHistory(pool, replacement('shorter', epoch, ['{"new":0}', '{"m":0}', USER, '{"b":3}'], 'later'))).toBe('replaced');
  expect(await rowsOf('shorter')).toMatchObject({ lines: [[0, epoch, '{"new":0}'], [1, epoch, '{"m":0}'], [2, epoch, USER], [3, epoch, '{"b":3}']], headEnd: 3, firstPreview: 'hi' });
  expect(await appendState(pool, 'shorter')).toEqual({ epoch, nextOrdinal: 4 });
});

test('a writer whose epoch was overtaken replaces nothing', async () => {
  const stale = await held('fenced', ['{"m":0}', USER]);
  const before = await rowsOf('fenced');
  const taken = await acquireThread(pool, { threadId: 'fenced', hostId, create: false });
  expect(taken).toMatchObject({ kind: 'acquired', epoch: stale + 1 });
  expect(await replaceHistory(pool, replacement('fenced', stale, ['{"new":0}'], 'hi'))).toBe('fenced');
  expect(await rowsOf('fenced')).toEqual(before);
  expect(await appendState(pool, 'fenced')).toEqual({ epoch: stale + 1, nextOrdinal: 2 });
});
