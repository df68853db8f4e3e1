// A paginated fork's rollout names its history instead of copying it (`history_base`, as codex
// 0.171.0 writes it: test/fixtures/reference-answers/thread-fork.jsonl): reading it puts the
// source's bytes in, from wherever the source sits in the home, following forks of forks.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { historyBaseOf, locateRollout, readPrefix, withHistoryBase } from '../../../../src/common/rollout/history-base.js';
import { parseRollout } from '../../../../src/common/rollout/rollout-reader.js';

const SOURCE_ID = '01a23672-eafd-79e2-a787-4ec115bd4630';
const FORK_ID = '01a24408-b61d-7823-b6a6-be7fad6599e2';
const CHAINED_ID = '01a24408-b639-7240-be1c-4a19ffa166d9';
const SOURCE_TEXT = readFileSync(new URL('../../../fixtures/rollouts/rollout-paginated-two-turns.jsonl', import.meta.url), 'utf8');
const SOURCE_LINES = SOURCE_TEXT.trim().split('\n');
// The sample's second turn starts at its 15th line (ordinal 14).
const SECOND_TURN_OFFSET = Buffer.byteLength(SOURCE_LINES.slice(0, 14).join('\n')) + 1;

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-history-base-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function rollout(day: string, id: string, text: string): string {
  const dir = join(home, 'sessions', '2026', '12', day);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-2026-12-${day}T11-10-30-${id}.jsonl`);
  writeFileSync(path, text);
  return path;
}

const forkMeta = (id: string, baseId: string, end: number, offset: number) =>
  JSON.stringify({
    timestamp: '2026-12-05T02:29:11.333Z',
    ordinal: end,
    type: 'session_meta',
    payload: { id, forked_from_id: baseId, cwd: '/w', history_mode: 'paginated', history_base: { thread_id: baseId, end_ordinal_exclusive: end, end_byte_offset: offset } },
  });

describe('historyBaseOf', () => {
  test('reads the base of a fork\'s session_meta, and nothing of any other first line', () => {
    expect(historyBaseOf(forkMeta(FORK_ID, SOURCE_ID.toUpperCase(), 14, 900))).toEqual({ threadId: SOURCE_ID, endOrdinalExclusive: 14, endByteOffset: 900 });
    expect(historyBaseOf(SOURCE_LINES[0]!)).toBeNull();
    expect(historyBaseOf('{"type":"event_msg","payload":{"history_base":{"thread_id":"x","end_ordinal_exclusive":1,"end_byte_offset":1}}}')).toBeNull();
    expect(historyBaseOf('{"type":"session_meta","payload":{"history_base":{"thread_id":"x","end_ordinal_exclusive":-1,"end_byte_offset":1}}}')).toBeNull();
    expect(historyBaseOf('{"type":"session_meta","payload":{"history_base":')).toBeNull();
  });
});

describe('withHistoryBase', () => {
  test('puts the source\'s lines before the cut after the fork\'s session_meta', () => {
    rollout('02', SOURCE_ID, SOURCE_TEXT);
    const own = `${forkMeta(FORK_ID, SOURCE_ID, 14, SECOND_TURN_OFFSET)}\n`;
    const path = rollout('05', FORK_ID, own);
    expect(withHistoryBase(path, own)).toBe(`${own}${SOURCE_LINES.slice(0, 14).join('\n')}\n`);
    const parsed = parseRollout(withHistoryBase(path, own));
    expect([parsed.threadId, parsed.meta?.forkedFromId, parsed.turns.map((t) => t.id), parsed.appendPoint]).toEqual([
      FORK_ID,
      SOURCE_ID,
      ['01a23672-eb08-77f1-b393-249eaf8bf0cb'],
      { kind: 'paginated', nextOrdinal: 15 },
    ]);
  });

  test('follows a fork of a fork, each to its own cut', () => {
    rollout('02', SOURCE_ID, SOURCE_TEXT);
    const fork = `${forkMeta(FORK_ID, SOURCE_ID, 14, SECOND_TURN_OFFSET)}\n`;
    rollout('04', FORK_ID, fork);
    const chained = `${forkMeta(CHAINED_ID, FORK_ID, 15, Buffer.byteLength(fork))}\n`;
    const path = rollout('05', CHAINED_ID, chained);
    expect(withHistoryBase(path, chained)).toBe(`${chained}${fork}${SOURCE_LINES.slice(0, 14).join('\n')}\n`);
  });

  test('leaves a fork whose source is gone with its own lines only', () => {
    const own = `${forkMeta(FORK_ID, SOURCE_ID, 14, SECOND_TURN_OFFSET)}\n`;
    expect(withHistoryBase(rollout('05', FORK_ID, own), own)).toBe(own);
  });

  test('reads at most `baseLimit` bytes of a base, in whole lines', () => {
    rollout('02', SOURCE_ID, SOURCE_TEXT);
    const own = `${forkMeta(FORK_ID, SOURCE_ID, 14, SECOND_TURN_OFFSET)}\n`;
    const limit = Buffer.byteLength(SOURCE_LINES[0]!) + 10;
    expect(withHistoryBase(rollout('05', FORK_ID, own), own, limit)).toBe(`${own}${SOURCE_LINES[0]}\n`);
  });
});

describe('locateRollout', () => {
  test('finds a source in the fork\'s directory, another date directory or the archive', () => {
    const fork = rollout('05', FORK_ID, '');
    const sameDay = rollout('05', SOURCE_ID, SOURCE_TEXT);
    expect(locateRollout(fork, SOURCE_ID.toUpperCase())).toBe(sameDay);
    rmSync(sameDay);
    const earlier = rollout('01', SOURCE_ID, SOURCE_TEXT);
    expect(locateRollout(fork, SOURCE_ID)).toBe(earlier);
    rmSync(earlier);
    mkdirSync(join(home, 'archived_sessions'));
    const archived = join(home, 'archived_sessions', `rollout-2026-12-01T11-10-30-${SOURCE_ID}.jsonl`);
    writeFileSync(archived, SOURCE_TEXT);
    expect(locateRollout(fork, SOURCE_ID)).toBe(archived);
    expect(locateRollout(fork, CHAINED_ID)).toBeNull();
  });
});

describe('readPrefix', () => {
  test('keeps the complete lines of the bytes asked for, and says null for a file that is not there', () => {
    const path = rollout('02', SOURCE_ID, `${SOURCE_LINES[0]}\n${SOURCE_LINES[1]}\n{"torn":`);
    expect(readPrefix(path, Number.POSITIVE_INFINITY)).toBe(`${SOURCE_LINES[0]}\n${SOURCE_LINES[1]}\n`);
    expect(readPrefix(path, Buffer.byteLength(SOURCE_LINES[0]!) + 1)).toBe(`${SOURCE_LINES[0]}\n`);
    expect(readPrefix(path, 5)).toBe('');
    expect(readPrefix(join(home, 'nothing.jsonl'), 10)).toBeNull();
  });
});
