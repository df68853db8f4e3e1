import { expect, test } from 'vitest';
import { epochRegressions, misplacedOrdinals, type StoredLine } from '../../../bench/lib/stored-history-rows.js';

const rows = (pairs: Array<[ordinal: number, epoch: number]>): StoredLine[] => pairs.map(([ordinal, epoch]) => ({ ordinal, epoch, line: `{"n":${ordinal}}` }));

test('a history written by three owners in turn keeps both invariants', () => {
  const lines = rows([[0, 1], [1, 1], [2, 2], [3, 4], [4, 4]]);
  expect([misplacedOrdinals(lines), epochRegressions(lines)]).toEqual([[], []]);
});

test('a gap or a repeat in the ordinals names every line out of place', () => {
  expect(misplacedOrdinals(rows([[0, 1], [2, 1], [3, 1]]))).toEqual(rows([[2, 1], [3, 1]]));
  expect(misplacedOrdinals(rows([[1, 1], [2, 1]]))).toEqual(rows([[1, 1], [2, 1]]));
});

test("a line under an epoch older than the one before it (a write after its host's lockLost) is named", () => {
  expect(epochRegressions(rows([[0, 1], [1, 3], [2, 2], [3, 3]]))).toEqual(rows([[2, 2]]));
});
