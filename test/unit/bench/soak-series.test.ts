// The soak verdict: last third of the samples against the middle third, the first third warm-up.
import { expect, test } from 'vitest';
import { sampleFromStatsLine, soakMarkdown, soakVerdict, type SoakSample } from '../../../bench/lib/soak-series.js';

const sample = (t: number, rssMB: number, fds: number, p99: number | null = 12, max: number | null = 20): SoakSample => ({
  t, rssMB, fds, eventLoopP99Ms: p99, eventLoopMaxMs: max, cycles: t * 100, loadedThreads: 8, liveWorkers: 2, source: 'log',
});

test('a series that grows only during warm-up is flat', () => {
  const rss = [100, 150, 190, 200, 201, 199, 200, 202, 201];
  const verdict = soakVerdict(rss.map((mb, i) => sample(i * 10, mb, 40 + (i % 2))));
  expect(verdict.warmupSamples).toBe(3);
  expect(verdict.thirdSamples).toBe(3);
  expect(verdict.rss!.ratio).toBeCloseTo(201 / 200, 6);
  expect(verdict.flat).toBe(true);
});

test('steady growth after warm-up is not flat, and each figure is judged on its own', () => {
  const leaking = Array.from({ length: 12 }, (_, i) => sample(i * 10, 100 + 10 * i, 40 + 20 * i));
  const verdict = soakVerdict(leaking);
  expect(verdict.rss!.flat).toBe(false);
  expect(verdict.fds!.flat).toBe(false);
  expect(verdict.eventLoopP99!.flat).toBe(true);
  expect(verdict.flat).toBe(false);
});

test('the slack absorbs small quantised noise, and the warm-up takes the remainder of n/3', () => {
  const fds = [30, 30, 30, 30, 31, 30, 31, 33, 32, 32]; // 10 samples: warm-up 4, thirds of 3
  const verdict = soakVerdict(fds.map((n, i) => sample(i, 200, n, i < 7 ? 11 : 15)));
  expect(verdict.warmupSamples).toBe(4);
  expect(verdict.fds).toMatchObject({ middleMean: 92 / 3, lastMean: 97 / 3 });
  expect(verdict.fds!.flat).toBe(true); // +5/3 fd: within ×1.1 + 2
  expect(verdict.eventLoopP99!.flat).toBe(true); // 11 → 15 ms: within ×1.5 + 5 ms
});

test('a server without event-loop figures is judged on RSS and fds; too few samples is never flat', () => {
  const proc = [1, 2, 3, 4, 5, 6].map((t) => ({ ...sample(t, 300, 50, null, null), source: 'proc' as const }));
  const verdict = soakVerdict(proc);
  expect(verdict.eventLoopP99).toBeNull();
  expect(verdict.eventLoopMaxAfterWarmupMs).toBeNull();
  expect(verdict.flat).toBe(true);
  expect(soakVerdict(proc.slice(0, 2))).toMatchObject({ thirdSamples: 0, flat: false, rss: null });
  expect(soakMarkdown(proc, verdict)).toContain('| 1 | 300.0 | 50 | n/a / n/a | 100 | 8 | 2 |');
});

test('stats lines of the host log become samples; other lines do not', () => {
  const line = JSON.stringify({
    ts: '2026-01-01T00:00:00.000Z', level: 'info', msg: 'stats', rssBytes: 150 * 2 ** 20, openFds: 42,
    eventLoopDelayMs: { p50: 10.1, p99: 12.5, max: 30 }, loadedThreads: 7, liveWorkers: 2,
  });
  expect(sampleFromStatsLine(line, 10, 1234)).toEqual({
    t: 10, rssMB: 150, fds: 42, eventLoopP99Ms: 12.5, eventLoopMaxMs: 30, cycles: 1234, loadedThreads: 7, liveWorkers: 2, source: 'log',
  });
  expect(sampleFromStatsLine('{"msg":"thread loaded"}', 10, 0)).toBeNull();
  expect(sampleFromStatsLine('not json', 10, 0)).toBeNull();
});
