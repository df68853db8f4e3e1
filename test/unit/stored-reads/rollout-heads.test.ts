// thread/list's heads kept between listings: a whole head (through the first user message) is
// read once; a new, replaced, shortened or still-growing head is read again; a deleted file is
// forgotten. Real files, listed through listRollouts with one RolloutHeads across calls.
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { RolloutHeads, type RolloutHead } from '../../../src/stored-reads/rollout-heads.js';
import { freshHead } from '../../../src/stored-reads/head-reads.js';
import { listRolloutHeads, listRollouts } from '../../helpers/list-rollouts.js';

const SAMPLE = readFileSync(new URL('../../fixtures/rollouts/rollout-legacy-two-turns.jsonl', import.meta.url), 'utf8');
const ID = '01a23672-ea80-7301-8e95-16757bdc1196';
const [META, ...REST] = SAMPLE.split('\n');
const FIRST_MESSAGE_LINE = REST.findIndex((line) => line.includes('"type":"user_message"'));
const BEFORE_MESSAGE = [META, ...REST.slice(0, FIRST_MESSAGE_LINE)].join('\n') + '\n';

let home: string;
let path: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rollout-heads-'));
  const day = join(home, 'sessions', '2026', '12', '02');
  await mkdir(day, { recursive: true });
  path = join(day, `rollout-2026-12-02T11-10-30-${ID}.jsonl`);
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const listed = async (heads: RolloutHeads) => (await listRollouts(home, heads)).map((s) => [s.threadId, s.preview, s.updatedAtMs]);

test('a whole head is read once: later listings take it as it was, with each listing\'s mtime', async () => {
  await writeFile(path, SAMPLE);
  await utimes(path, new Date(1_000_000), new Date(1_000_000));
  const heads = new RolloutHeads();
  expect(await listed(heads)).toEqual([[ID, 'hello', 1_000_000]]);
  // Rewrite the first message in place (same inode, longer file): a listing that read the head
  // again would see "HELLO"; listings keep the whole head (thread/list reads its page again).
  await writeFile(path, SAMPLE.replace('"message":"hello"', '"message":"HELLO"') + '\n');
  await utimes(path, new Date(2_000_000), new Date(2_000_000));
  expect(await listed(heads)).toEqual([[ID, 'hello', 2_000_000]]);
  // Without kept heads, the same file reads as it is now.
  expect(await listed(new RolloutHeads())).toEqual([[ID, 'HELLO', 2_000_000]]);
});

test('a head without its first user message yet is read again once the file grew', async () => {
  await writeFile(path, BEFORE_MESSAGE);
  const heads = new RolloutHeads();
  expect((await listed(heads)).map(([id, preview]) => [id, preview])).toEqual([[ID, '']]);
  await appendFile(path, REST.slice(FIRST_MESSAGE_LINE).join('\n'));
  expect((await listed(heads)).map(([id, preview]) => [id, preview])).toEqual([[ID, 'hello']]);
});

test('a file replaced (another inode) or cut shorter is read again', async () => {
  await writeFile(path, SAMPLE);
  const heads = new RolloutHeads();
  expect((await listed(heads))[0]![1]).toBe('hello');
  await unlink(path);
  await writeFile(path, SAMPLE.replace('"message":"hello"', '"message":"again"'));
  expect((await listed(heads))[0]![1]).toBe('again');
  await writeFile(path, BEFORE_MESSAGE); // truncated in place: same inode, shorter
  expect((await listed(heads))[0]![1]).toBe('');
});

test('a deleted rollout leaves the listing and the kept heads', async () => {
  await writeFile(path, SAMPLE);
  const heads = new RolloutHeads();
  expect(await listed(heads)).toHaveLength(1);
  expect(heads.size).toBe(1);
  await unlink(path);
  expect(await listed(heads)).toEqual([]);
  expect(heads.size).toBe(0);
});

test('a head with a preview past 16 Ki characters is read at every listing rather than kept', async () => {
  const long = (letter: string) => SAMPLE.replace('"message":"hello"', `"message":"${letter.repeat(20_000)}"`);
  await writeFile(path, long('p'));
  const heads = new RolloutHeads();
  expect((await listed(heads))[0]![1]).toBe('p'.repeat(20_000));
  expect(heads.size).toBe(0);
  await writeFile(path, long('q') + '\n');
  expect((await listed(heads))[0]![1]).toBe('q'.repeat(20_000));
});

test('listed by creation time, a whole head comes without a stat; freshHead reads it again, and a changed one replaces it', async () => {
  await writeFile(path, SAMPLE);
  await utimes(path, new Date(3_000_000), new Date(3_000_000));
  const heads = new RolloutHeads();
  const [first] = await listRolloutHeads(home, heads, 'trustWhole');
  expect([first!.head.preview, first!.updatedAtMs]).toEqual(['hello', 3_000_000]); // read now: stat'ed
  const [again] = await listRolloutHeads(home, heads, 'trustWhole');
  expect([again!.head, again!.updatedAtMs]).toEqual([first!.head, null]);
  expect(freshHead(again!.head, heads)).toEqual({ kind: 'same', head: first!.head, updatedAtMs: 3_000_000 });
  // Cut back and written again in place (same inode, not shorter): only a fresh read sees it.
  await writeFile(path, SAMPLE.replace('"message":"hello"', '"message":"later"') + '\n');
  await utimes(path, new Date(5_000_000), new Date(5_000_000));
  expect(freshHead(again!.head, heads)).toEqual({ kind: 'changed', head: { ...first!.head, preview: 'later' }, updatedAtMs: 5_000_000 });
  const [kept] = await listRolloutHeads(home, heads, 'trustWhole');
  expect([kept!.head.preview, kept!.updatedAtMs]).toEqual(['later', null]);
  await unlink(path);
  expect(freshHead(kept!.head, heads)).toEqual({ kind: 'gone' });
});

test('a head not yet whole is stat\'ed at every listing, even by creation time', async () => {
  await writeFile(path, BEFORE_MESSAGE);
  await utimes(path, new Date(4_000_000), new Date(4_000_000));
  const heads = new RolloutHeads();
  await listRolloutHeads(home, heads, 'trustWhole');
  const [again] = await listRolloutHeads(home, heads, 'trustWhole');
  expect([again!.head.preview, again!.updatedAtMs]).toEqual(['', 4_000_000]);
});

test('the kept heads stay within their character budget, the oldest forgotten first', () => {
  const heads = new RolloutHeads();
  const preview = 'p'.repeat(16 * 1024); // the longest preview kept
  const headAt = (i: number): RolloutHead => ({
    threadId: `t${i}`, path: `/h/${i}`, createdAtMs: i, preview, modelProvider: 'm', cwd: '/w', cliVersion: '1', source: 'cli', sourceKind: 'cli', originator: 'o', model: null, historyMode: 'legacy',
  });
  const file = { ino: 1, bornMs: 1, size: 10 };
  for (let i = 0; i < 1_100; i += 1) heads.set(`/h/${i}`, file, headAt(i), true);
  // Within the budget, and as full as it can be: less than one more head of room is left (each
  // is its 16 KiB preview and under 512 characters besides).
  expect(heads.chars).toBeLessThanOrEqual(16 * 1024 * 1024);
  expect(heads.chars).toBeGreaterThan(16 * 1024 * 1024 - (16 * 1024 + 512));
  expect(heads.size).toBeLessThan(1_100);
  const kept = heads.size;
  expect([heads.whole('/h/0'), heads.whole(`/h/${1_100 - kept - 1}`), heads.whole(`/h/${1_100 - kept}`)?.threadId, heads.whole('/h/1099')?.threadId]).toEqual([
    undefined, undefined, `t${1_100 - kept}`, 't1099',
  ]);
  heads.retainOnly(new Set());
  expect([heads.size, heads.chars]).toEqual([0, 0]);
});
