// The fixed percentile set every bench figure carries, from perf_hooks.createHistogram().
import { expect, test } from 'vitest';
import { LatencyHistogram, roundMs, summarize } from '../../../bench/lib/histogram.js';

test('1..100 ms summarises to the percentiles and the exact maximum, in ms', () => {
  // The histogram's buckets keep about three significant digits, hence 90.05 for 90.
  expect(summarize(Array.from({ length: 100 }, (_, i) => i + 1))).toEqual({ count: 100, p50: 50, p90: 90.05, p99: 99.02, max: 100 });
});

test('no percentile is reported above the recorded maximum', () => {
  expect(summarize([0.5, 2])).toEqual({ count: 2, p50: 0.5002, p90: 2, p99: 2, max: 2 });
});

test('sub-microsecond values are kept (recorded in ns), and nothing recorded is all zeros', () => {
  expect(summarize([0.0004])).toEqual({ count: 1, p50: 0.0004, p90: 0.0004, p99: 0.0004, max: 0.0004 });
  expect(new LatencyHistogram().summary()).toEqual({ count: 0, p50: 0, p90: 0, p99: 0, max: 0 });
});

test('a histogram counts what it records; figures are rounded to four significant digits', () => {
  const histogram = new LatencyHistogram();
  histogram.recordMs(1234.5678);
  histogram.recordMs(0); // recorded as 1 ns: the histogram takes integers >= 1
  expect(histogram.count).toBe(2);
  expect(histogram.summary().max).toBe(1235);
  expect(roundMs(0.000123456)).toBe(0.0001235);
});
