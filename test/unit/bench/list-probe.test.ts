// The figures of an open-loop probe over a lock-hold window.
import { expect, test } from 'vitest';
import { longestGap, timelineSamples, windowStats } from '../../../bench/lib/list-probe.js';

test('the longest gap runs from the window start through the last answer, or to the window end', () => {
  expect(longestGap(100, 200, [110, 130, 190])).toBe(60);
  expect(longestGap(100, 200, [110, 120])).toBe(80); // silence until the end of the hold counts
  expect(longestGap(100, 200, [])).toBe(100);
  expect(longestGap(100, 200, [2100])).toBe(2000); // a server that answers only after release
});

test('window stats count only requests sent in the window, whenever they were answered', () => {
  const samples = [
    { sentAt: 90, at: 91 }, // before the hold
    { sentAt: 100, at: 101 },
    { sentAt: 115, at: 250 }, // answered after the release
    { sentAt: 130, at: null, error: 'thread/loaded/list: Server overloaded; retry later.' },
    { sentAt: 200, at: 201 }, // sent at the release: after the window
  ];
  expect(windowStats(samples, 100, 200)).toEqual({
    latency: { count: 2, p50: 1, p90: 135, p99: 135, max: 135 },
    sent: 3,
    failed: 1,
    errors: ['thread/loaded/list: Server overloaded; retry later.'],
    answeredInWindow: 1,
    longestGapMs: 149,
  });
});

test('timeline samples are relative to the origin, with null for a failed request', () => {
  expect(timelineSamples([{ sentAt: 1000.123, at: 1000.5 }, { sentAt: 1015, at: null }], 1000)).toEqual([[0.12, 0.38], [15, null]]);
});
