import { expect, test } from 'vitest';
import { jainIndex, longestStarvation, sharesInWindow } from '../../../bench/lib/handoff-figures.js';

test("Jain's index is 1 for equal shares and 1/n when one process gets everything", () => {
  expect([jainIndex([5, 5, 5, 5]), jainIndex([8, 0, 0, 0]), jainIndex([0, 0]), jainIndex([3, 1])]).toEqual([1, 0.25, 1, 0.8]);
});

test('shares count only the events inside the window', () => {
  expect(sharesInWindow([[1, 2, 3, 50], [4, 60], []], 0, 10)).toEqual([0.75, 0.25, 0]);
  expect(sharesInWindow([[20], [30]], 0, 10)).toEqual([0, 0]);
});

test('starvation is the longest gap from the start, between successes, and to the finish', () => {
  expect(longestStarvation([30, 10, 100], 0, 110)).toBe(70);
  expect(longestStarvation([], 5, 25)).toBe(20);
});
