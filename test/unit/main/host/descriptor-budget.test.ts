import { expect, test } from 'vitest';
import { loadLimitFor, maxLoadedThreadsFor, parseProcLimits } from '../../../../src/main/host/descriptor-budget.js';

const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 1048576              files
Max locked memory         8388608              8388608              bytes
`;

test('the open-file limit is read from the "Max open files" row of /proc/self/limits', () => {
  expect(parseProcLimits(PROC_LIMITS)).toEqual({ soft: 1024, hard: 1048576 });
  expect(parseProcLimits(PROC_LIMITS.replace('1048576 ', 'unlimited'))).toEqual({ soft: 1024, hard: Number.MAX_SAFE_INTEGER });
  expect(parseProcLimits('Limit Soft Limit Hard Limit Units\n')).toEqual(null);
});

test('a thread costs three descriptors beside a fixed reserve of 64 and 4 per worker (the pool\'s and the four dedicated ones), and at least one thread fits', () => {
  expect([maxLoadedThreadsFor(1024, 2), maxLoadedThreadsFor(256, 2), maxLoadedThreadsFor(20_000, 4), maxLoadedThreadsFor(16, 2)]).toEqual([
    312, 56, 6_634, 1,
  ]);
});

test('a configured max_loaded_threads wins over the budget, and the remedy names what to raise', () => {
  const logs: string[] = [];
  const log = (level: string, message: string) => void logs.push(`${level}: ${message}`);
  expect(loadLimitFor(null, 2, { soft: 256, hard: 256 }, log)).toEqual({
    maxLoadedThreads: 56,
    remedy: 'raise the open-file limit (ulimit -n, now 256) or set max_loaded_threads (now 56), or unload threads',
  });
  expect(loadLimitFor(100, 2, { soft: 256, hard: 256 }, log)).toEqual({
    maxLoadedThreads: 100,
    remedy: 'raise max_loaded_threads (now 100) in config.toml or unload threads',
  });
  expect(loadLimitFor(null, 2, null, log).maxLoadedThreads).toBe(312);
  expect(logs).toEqual([
    'info: max_loaded_threads from the open-file limit',
    'warn: max_loaded_threads is above what the open-file limit can hold',
    'warn: could not read the open-file limit; assuming 1024',
    'info: max_loaded_threads from the open-file limit',
  ]);
});
