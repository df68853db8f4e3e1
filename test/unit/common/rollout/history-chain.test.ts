// withHistoryBases: a rollout that continues a base file's prefix reads as that prefix then its
// own lines, through bases of bases, found by file id anywhere under sessions/ (no link
// followed); a base that does not match what it is said to be is an error, not a guess.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { historyBaseOf, withHistoryBases } from '../../../../src/common/rollout/history-chain.js';

const THREAD = '01a24398-0000-7000-8000-00000000000a';
const FILE_1 = '01a24398-0000-7000-8000-0000000000f1';
const FILE_2 = '01a24398-0000-7000-8000-0000000000f2';
let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-history-chain-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const meta = (ordinal: number, base?: { fileId: string; end: number; offset: number }) =>
  JSON.stringify({
    ordinal,
    type: 'session_meta',
    payload: { id: THREAD, ...(base ? { history_base: { thread_id: base.fileId, end_ordinal_exclusive: base.end, end_byte_offset: base.offset } } : {}) },
  });
const line = (ordinal: number, text: string) => JSON.stringify({ ordinal, type: 'event_msg', payload: { type: 'note', text } });
const lines = (...records: string[]) => records.map((record) => `${record}\n`).join('');

/** Writes a rollout under sessions/<day>/; returns its path. */
function rollout(day: string, fileId: string | null, text: string): string {
  const dir = join(home, 'sessions', '2026', '12', day);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-2026-12-${day}T00-00-00-${THREAD}${fileId === null ? '' : `_${fileId}`}.jsonl`);
  writeFileSync(path, text);
  return path;
}

const first = lines(meta(0), line(1, 'kept'), line(2, 'kept too'), line(3, 'reverted'));
const keptBytes = Buffer.byteLength(lines(meta(0), line(1, 'kept'), line(2, 'kept too')));

test('a rollout without a base reads as it is', () => {
  expect(withHistoryBases(rollout('01', null, first), first)).toBe(first);
  expect(historyBaseOf(line(0, 'not a session_meta'))).toBeNull();
});

test('a chain reads as its bases\' prefixes, oldest first, then the newest file, wherever each is', () => {
  rollout('01', null, first);
  const second = lines(meta(3, { fileId: THREAD, end: 3, offset: keptBytes }), line(4, 'second'), line(5, 'reverted again'));
  rollout('02', FILE_1, second);
  const secondKept = Buffer.byteLength(lines(meta(3, { fileId: THREAD, end: 3, offset: keptBytes }), line(4, 'second')));
  const third = lines(meta(5, { fileId: FILE_1, end: 5, offset: secondKept }), line(6, 'third'));
  const path = rollout('03', FILE_2, third);
  expect(withHistoryBases(path, third)).toBe(
    lines(meta(0), line(1, 'kept'), line(2, 'kept too'), meta(3, { fileId: THREAD, end: 3, offset: keptBytes }), line(4, 'second')) + third,
  );
});

test('a base that is missing, or does not end where it says, is an error', () => {
  const path = (base: { fileId: string; end: number; offset: number }) => {
    const text = lines(meta(3, base), line(3, 'new'));
    return () => withHistoryBases(rollout('02', FILE_1, text), text);
  };
  expect(path({ fileId: FILE_2, end: 3, offset: keptBytes })).toThrow(`history base ${FILE_2} of`);
  rollout('01', null, first);
  expect(path({ fileId: THREAD, end: 3, offset: keptBytes - 1 })).toThrow(`history base offset ${keptBytes - 1} is not a line end of`);
  expect(path({ fileId: THREAD, end: 3, offset: first.length + 10 })).toThrow('is not a line end of');
  expect(path({ fileId: THREAD, end: 2, offset: keptBytes })).toThrow('ends at ordinal 2, not 1');
  expect(() => historyBaseOf(JSON.stringify({ type: 'session_meta', payload: { history_base: { thread_id: THREAD } } }))).toThrow('malformed history_base');
});

test('a base reached only through a symbolic link is not found', () => {
  const outside = mkdtempSync(join(tmpdir(), 'thread-host-history-chain-outside-'));
  try {
    writeFileSync(join(outside, `rollout-2026-12-01T00-00-00-${THREAD}.jsonl`), first);
    mkdirSync(join(home, 'sessions', '2026'), { recursive: true });
    symlinkSync(outside, join(home, 'sessions', '2026', '11'));
    const text = lines(meta(3, { fileId: THREAD, end: 3, offset: keptBytes }), line(3, 'new'));
    expect(() => withHistoryBases(rollout('02', FILE_1, text), text)).toThrow(`history base ${THREAD} of`);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});
