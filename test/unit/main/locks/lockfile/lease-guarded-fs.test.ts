import type nodeFs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { createLease, leaseExpiry } from '../../../../../src/common/writer-lease.js';
import { leaseGuardedFs } from '../../../../../src/main/store/files/locks/lockfile/lease-guarded-fs.js';

// Stale after 3 s, a heartbeat every second: a refresh issued at t extends the lease to t + 2 s.
const leaseFor = (issuedAtMs: number) => issuedAtMs + 2_000;
const PATH = '/home/thread-writer-lockdirs/t.lock';
const iso = (ms: number) => new Date(ms).toISOString();

/** An fs whose utimes answers only when the test calls `complete`, at the time the test sets. */
function scene(leaseUntilMs: number) {
  let nowMs = 0;
  const issued: string[] = [];
  let answer: ((error: NodeJS.ErrnoException | null) => void) | null = null;
  const fake = {
    utimes: (path: string, _atime: Date, _mtime: Date, callback: (error: NodeJS.ErrnoException | null) => void) => {
      issued.push(path);
      answer = callback;
    },
  } as unknown as typeof nodeFs;
  const lease = createLease(leaseUntilMs);
  const fs = leaseGuardedFs(fake, lease, leaseFor, () => nowMs);
  const results: (string | null)[] = [];
  return {
    lease,
    issued,
    results,
    at: (ms: number) => (nowMs = ms),
    refresh: () => fs.utimes(PATH, new Date(0), new Date(0), (error) => results.push(error === null ? null : `${error.code}: ${error.message}`)),
    complete: (error: NodeJS.ErrnoException | null = null) => answer!(error),
  };
}

describe('the heartbeat refresh under a lease', () => {
  test('a refresh completed before the lease ends extends it from when it was issued', () => {
    const s = scene(10_000);
    s.at(9_000);
    s.refresh();
    s.at(9_900);
    s.complete();
    expect([s.issued, s.results, leaseExpiry(s.lease)]).toEqual([[PATH], [null], 11_000]);
  });

  test('a lapsed lease is never renewed: nothing is issued, the lease ends at once and the heartbeat is failed', () => {
    const s = scene(10_000);
    s.at(10_000);
    s.refresh();
    expect([s.issued, s.results, leaseExpiry(s.lease)]).toEqual([
      [],
      [`ENOENT: the writer lease of ${PATH} ran out at ${iso(10_000)}, before its heartbeat could refresh it; another host may own it now`],
      0,
    ]);
  });

  test('a refresh that completes after the lease ends extends nothing and ends the lease', () => {
    const s = scene(10_000);
    s.at(9_500);
    s.refresh();
    s.at(12_345);
    s.complete();
    expect([s.issued, s.results, leaseExpiry(s.lease)]).toEqual([
      [PATH],
      [`ENOENT: the heartbeat's refresh of ${PATH} completed at ${iso(12_345)}, after its writer lease ran out at ${iso(10_000)}; another host may own it now`],
      0,
    ]);
  });

  test('a lease already ended (the lock was lost) is not renewed either', () => {
    const s = scene(0);
    s.at(5_000);
    s.refresh();
    expect([s.issued, s.results, leaseExpiry(s.lease)]).toEqual([[], [`ENOENT: the lock on ${PATH} was already given up`], 0]);
  });

  test('a failed refresh leaves the lease as it was and hands the error to the heartbeat', () => {
    const s = scene(10_000);
    s.at(9_000);
    s.refresh();
    s.complete(Object.assign(new Error('ESTALE: stale file handle, utime'), { code: 'ESTALE' }));
    expect([s.results, leaseExpiry(s.lease)]).toEqual([['ESTALE: ESTALE: stale file handle, utime'], 10_000]);
  });
});
