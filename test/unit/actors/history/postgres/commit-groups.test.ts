// Group commit: batches handed over while a statement is in flight go together in the next one,
// in call order; a group lands or fails whole, and the next group still runs; lingering batches
// wait for one that does not linger, a flush, or LINGER_MS.
import { expect, test, vi } from 'vitest';
import { CommitGroups, LINGER_MS } from '../../../../../src/actors/history/postgres/commit-groups.js';

/** A store whose statements end when the test says, recording each one's lines. */
function heldStore(): { statements: string[][]; finish: (error?: Error) => void; groups: CommitGroups } {
  const statements: string[][] = [];
  const pending: Array<(error?: Error) => void> = [];
  const groups = new CommitGroups(
    (lines) =>
      new Promise<void>((resolve, reject) => {
        statements.push(lines);
        pending.push((error) => (error === undefined ? resolve() : reject(error)));
      }),
  );
  return { statements, groups, finish: (error) => pending.shift()?.(error) };
}

const outcome = (landed: Promise<void>) => landed.then(() => 'landed', (error: Error) => `failed: ${error.message}`);

test('batches handed over during a statement go together in the next, in call order', async () => {
  const { statements, finish, groups } = heldStore();
  const first = outcome(groups.push(['a']));
  const second = outcome(groups.push(['b', 'c']));
  const third = outcome(groups.push(['d']));
  expect([statements, groups.queuedLines]).toEqual([[['a']], 4]);
  finish();
  await expect(first).resolves.toBe('landed');
  expect(statements).toEqual([['a'], ['b', 'c', 'd']]);
  finish();
  expect([await second, await third, groups.queuedLines]).toEqual(['landed', 'landed', 0]);
  await groups.idle();
});

test('a group fails whole, and the group after it still runs', async () => {
  const { statements, finish, groups } = heldStore();
  const first = outcome(groups.push(['a']));
  const second = outcome(groups.push(['b']));
  const third = outcome(groups.push(['c']));
  finish();
  await first;
  finish(new Error('connection lost'));
  expect([await second, await third]).toEqual(['failed: connection lost', 'failed: connection lost']);
  const fourth = outcome(groups.push(['d']));
  finish();
  expect([await fourth, statements]).toEqual(['landed', [['a'], ['b', 'c'], ['d']]]);
});

test('lingering batches wait for the next batch that does not linger, and go with it', async () => {
  const { statements, finish, groups } = heldStore();
  const start = outcome(groups.push(['start'], true));
  const item = outcome(groups.push(['item'], true));
  expect([statements, groups.queuedLines]).toEqual([[], 2]);
  const end = outcome(groups.push(['end']));
  expect(statements).toEqual([['start', 'item', 'end']]);
  finish();
  expect([await start, await item, await end, groups.queuedLines]).toEqual(['landed', 'landed', 'landed', 0]);
});

test('flush() and idle() send what lingers', async () => {
  const { statements, finish, groups } = heldStore();
  const flushed = outcome(groups.push(['a'], true));
  groups.flush();
  expect(statements).toEqual([['a']]);
  finish();
  await flushed;
  const closing = outcome(groups.push(['b'], true));
  const idle = groups.idle();
  expect(statements).toEqual([['a'], ['b']]);
  finish();
  await idle;
  expect(await closing).toBe('landed');
});

test('a lingering batch goes by itself after LINGER_MS, and one queued during a statement goes right after it', async () => {
  vi.useFakeTimers();
  try {
    const { statements, finish, groups } = heldStore();
    const alone = outcome(groups.push(['a'], true));
    await vi.advanceTimersByTimeAsync(LINGER_MS - 1);
    expect(statements).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(statements).toEqual([['a']]);
    const during = outcome(groups.push(['b'], true));
    finish();
    expect(await alone).toBe('landed');
    expect(statements).toEqual([['a'], ['b']]);
    finish();
    expect(await during).toBe('landed');
  } finally {
    vi.useRealTimers();
  }
});
