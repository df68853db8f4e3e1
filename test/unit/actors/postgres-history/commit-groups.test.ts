// Group commit: batches handed over while a statement is in flight go together in the next one,
// in call order; a group lands or fails whole, and the next group still runs.
import { expect, test } from 'vitest';
import { CommitGroups } from '../../../../src/actors/postgres-history/commit-groups.js';

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
