// The PostgreSQL thread store's rows of a thread and their invariants, as the fleet's tests
// assert them. The reading and the checks are the bench's too (bench/lib/stored-history-rows.ts).
import { expect } from 'vitest';
import { epochRegressions, misplacedOrdinals, type StoredLine } from '../../bench/lib/stored-history-rows.js';

export { storedLines, storedTurns, type StoredLine } from '../../bench/lib/stored-history-rows.js';

/** The invariants every history in the store keeps: ordinals 0..n-1, epochs never decreasing along them. */
export function expectWellFormed(lines: StoredLine[], context?: string): void {
  expect(misplacedOrdinals(lines), context).toEqual([]);
  expect(epochRegressions(lines), context).toEqual([]);
}
