import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { type Clock, systemClock } from '../../../../../src/common/clock.js';
import type { JanitorEvent } from '../../../../../src/main/store/files/locks/flock/lock-janitor.js';
import { FlockWriterLocks, type FlockWriterLocksOptions } from '../../../../../src/main/store/files/locks/flock/flock-writer-locks.js';
import { type FlockHolder, holdFlock } from '../../../../../bench/lib/flock-holder.js';
import { snapshotProcLocks } from '../../../../../bench/lib/proc-locks.js';

const O_CLOEXEC = 0o2000000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempHome(): { home: string; dir: string; coordination: string; lockPath(id: string): string } {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-locks-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const dir = join(home, 'thread-writer-locks');
  return { home, dir, coordination: join(dir, '.coordination.lock'), lockPath: (id) => join(dir, `${id}.lock`) };
}

function manager(home: string, options: FlockWriterLocksOptions = {}): FlockWriterLocks {
  const created = new FlockWriterLocks(home, options);
  cleanups.push(() => void created.close());
  return created;
}

async function hold(path: string, mode: 'shared' | 'exclusive'): Promise<FlockHolder> {
  const holder = await holdFlock(path, mode);
  cleanups.push(() => holder.release());
  return holder;
}

/** The kernel's view: every /proc/locks entry on the inode `path` has (or had, if `inode` is given). */
function kernelLocksOn(path: string, inode = statSync(path, { bigint: true })) {
  const major = ((inode.dev >> 8n) & 0xfffn) | ((inode.dev >> 32n) & ~0xfffn);
  const minor = (inode.dev & 0xffn) | ((inode.dev >> 12n) & ~0xffn);
  // One consistent snapshot: several reads of /proc/locks can list a lock twice.
  return snapshotProcLocks()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.replace('->', '').trim().split(/\s+/))
    .filter(([, , , , , where]) => {
      const [maj, min, ino] = (where ?? '').split(':');
      if (maj === undefined || min === undefined || ino === undefined) return false;
      return BigInt(`0x${maj}`) === major && BigInt(`0x${min}`) === minor && BigInt(ino) === inode.ino;
    })
    .map(([, type, , access, pid]) => ({ type, access, pid: Number(pid) }));
}

/** systemClock, counting timers so tests can assert how many a wait costs. */
function countingClock() {
  const outstanding = new Set<unknown>();
  const stats = { set: 0, maxOutstanding: 0 };
  const clock: Clock = {
    now: () => systemClock.now(),
    setTimeout(fn, ms) {
      const handle: unknown = systemClock.setTimeout(() => {
        outstanding.delete(handle);
        fn();
      }, ms);
      stats.set += 1;
      outstanding.add(handle);
      stats.maxOutstanding = Math.max(stats.maxOutstanding, outstanding.size);
      return handle;
    },
    clearTimeout(handle) {
      outstanding.delete(handle);
      systemClock.clearTimeout(handle);
    },
  };
  return { clock, stats };
}

/**
 * A writer lock released while another process holds exclusive coordination, so its file is
 * left to the janitor (first retry after 20 ms); `coordinator` is that other process.
 */
async function leftBehind() {
  const { home, dir, coordination, lockPath } = tempHome();
  const events = janitorEvents();
  const locks = manager(home, { janitor: { baseDelayMs: 20 }, onJanitorEvent: events.onEvent });
  const id = randomUUID();
  const result = await locks.acquire(id);
  if (result.kind !== 'acquired') throw new Error(`expected acquired, got ${result.kind}`);
  const coordinator = await hold(coordination, 'exclusive');
  expect(locks.release(result.lock)).toBe('leftBehind');
  return { dir, lockPath, events, id, coordinator };
}

/** Collects janitor events and lets a test await the first one matching a predicate. */
function janitorEvents() {
  const seen: JanitorEvent[] = [];
  const waiters: { match: (event: JanitorEvent) => boolean; resolve: (event: JanitorEvent) => void }[] = [];
  return {
    seen,
    onEvent(event: JanitorEvent) {
      seen.push(event);
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(event)) waiter.resolve(event);
        else waiters.push(waiter);
      }
    },
    next(match: (event: JanitorEvent) => boolean): Promise<JanitorEvent> {
      const already = seen.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

const sorted = (dir: string) => readdirSync(dir).sort();

describe('acquire', () => {
  test('acquire creates the thread lock file and the kernel shows FLOCK WRITE held by this process', async () => {
    const { home, lockPath, coordination } = tempHome();
    const locks = manager(home);
    const id = randomUUID();

    const result = await locks.acquire(id);

    expect(result).toEqual({ kind: 'acquired', lock: { threadId: id, path: lockPath(id), fd: expect.any(Number), released: false } });
    expect(kernelLocksOn(lockPath(id))).toEqual([{ type: 'FLOCK', access: 'WRITE', pid: process.pid }]);
    // Coordination is held only across open+lock, never for the thread's life.
    expect(kernelLocksOn(coordination)).toEqual([]);
    expect(locks.ownedCount()).toBe(1);
  });

  test('the lock fd is close-on-exec so child processes never inherit ownership', async () => {
    const { home } = tempHome();
    const result = await manager(home).acquire(randomUUID());
    if (result.kind !== 'acquired') throw new Error(`expected acquired, got ${result.kind}`);

    const flagsLine = readFileSync(`/proc/self/fdinfo/${result.lock.fd}`, 'utf8').match(/^flags:\s*([0-7]+)$/m);
    expect(Number.parseInt(flagsLine?.[1] ?? '0', 8) & O_CLOEXEC).toBe(O_CLOEXEC);
  });

  test('a thread whose file another process holds is answered activeWriter at once and the file is kept', async () => {
    const { home, dir, lockPath } = tempHome();
    const id = randomUUID();
    mkdirSync(dir, { recursive: true });
    const other = await hold(lockPath(id), 'exclusive');
    const { clock, stats } = countingClock();
    const locks = manager(home, { clock });

    expect(await locks.acquire(id)).toEqual({ kind: 'activeWriter' });
    expect(stats.set).toBe(0);
    expect(existsSync(lockPath(id))).toBe(true);
    expect(kernelLocksOn(lockPath(id))).toEqual([{ type: 'FLOCK', access: 'WRITE', pid: other.pid }]);
    expect(locks.ownedCount()).toBe(0);
  });

  test('a second acquisition of a thread this process already owns is activeWriter too', async () => {
    const { home } = tempHome();
    const locks = manager(home);
    const id = randomUUID();
    expect((await locks.acquire(id)).kind).toBe('acquired');

    expect(await locks.acquire(id)).toEqual({ kind: 'activeWriter' });
    expect(locks.ownedCount()).toBe(1);
  });

  test('acquisitions wait while another process holds coordination and succeed within one poll interval of its release', async () => {
    const { home, dir, coordination, lockPath } = tempHome();
    mkdirSync(dir, { recursive: true });
    const other = await hold(coordination, 'exclusive');
    const locks = manager(home);
    const id = randomUUID();

    const acquisition = locks.acquire(id);
    expect(locks.pendingCount()).toBe(1);
    expect(existsSync(lockPath(id))).toBe(false);

    await other.release();
    const releasedAt = performance.now();
    const result = await acquisition;
    const waitedAfterRelease = performance.now() - releasedAt;

    expect(result).toEqual({ kind: 'acquired', lock: { threadId: id, path: lockPath(id), fd: expect.any(Number), released: false } });
    expect(waitedAfterRelease).toBeLessThan(50 + 50); // one 50 ms poll interval plus timer slack
    expect(locks.pendingCount()).toBe(0);
  });

  test('an acquisition times out after its timeoutMs while coordination stays held and creates no file', async () => {
    const { home, dir, coordination, lockPath } = tempHome();
    mkdirSync(dir, { recursive: true });
    await hold(coordination, 'exclusive');
    const locks = manager(home);
    const id = randomUUID();

    const startedAt = performance.now();
    const result = await locks.acquire(id, { timeoutMs: 120 });

    expect(result).toEqual({ kind: 'timedOut' });
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(119);
    expect(existsSync(lockPath(id))).toBe(false);
    expect(locks.pendingCount()).toBe(0);
  });

  test('eight waiting acquisitions are served by one poller with one timer at a time', async () => {
    const { home, dir, coordination, lockPath } = tempHome();
    mkdirSync(dir, { recursive: true });
    const other = await hold(coordination, 'exclusive');
    const { clock, stats } = countingClock();
    const locks = manager(home, { clock });
    const ids = Array.from({ length: 8 }, () => randomUUID());

    const acquisitions = ids.map((id) => locks.acquire(id));
    expect(locks.pendingCount()).toBe(8);
    await other.release();
    const results = await Promise.all(acquisitions);

    expect(results).toEqual(
      ids.map((id) => ({ kind: 'acquired', lock: { threadId: id, path: lockPath(id), fd: expect.any(Number), released: false } })),
    );
    expect(stats.maxOutstanding).toBe(1);
    expect(locks.ownedCount()).toBe(8);
  });

  test('a thread id that could name another file is refused before touching the directory', async () => {
    const { home } = tempHome();
    const locks = manager(home);

    await expect(locks.acquire('.coordination')).rejects.toThrow(TypeError);
    await expect(locks.acquire('../escape')).rejects.toThrow(TypeError);
    expect(existsSync(join(home, 'thread-writer-locks'))).toBe(false);
  });
});

describe('release', () => {
  test('release with coordination free closes the fd then unlinks the file', async () => {
    const { home, dir, lockPath } = tempHome();
    const locks = manager(home);
    const id = randomUUID();
    const result = await locks.acquire(id);
    if (result.kind !== 'acquired') throw new Error(`expected acquired, got ${result.kind}`);
    const inode = statSync(lockPath(id), { bigint: true });

    expect(locks.release(result.lock)).toBe('unlinked');

    expect(result.lock.released).toBe(true);
    expect(kernelLocksOn(lockPath(id), inode)).toEqual([]);
    expect(sorted(dir)).toEqual(['.coordination.lock']);
    expect(locks.ownedCount()).toBe(0);
    expect(locks.release(result.lock)).toBe('alreadyReleased');
  });

  test('release while another process holds coordination leaves the file but gives up ownership at once', async () => {
    const { home, dir, coordination, lockPath } = tempHome();
    const locks = manager(home);
    const id = randomUUID();
    const result = await locks.acquire(id);
    if (result.kind !== 'acquired') throw new Error(`expected acquired, got ${result.kind}`);
    await hold(coordination, 'exclusive');

    expect(locks.release(result.lock)).toBe('leftBehind');

    expect(sorted(dir)).toEqual(['.coordination.lock', `${id}.lock`].sort());
    expect(kernelLocksOn(lockPath(id))).toEqual([]);
    const next = await hold(lockPath(id), 'exclusive');
    expect(kernelLocksOn(lockPath(id))).toEqual([{ type: 'FLOCK', access: 'WRITE', pid: next.pid }]);
    expect(locks.release(result.lock)).toBe('alreadyReleased');
  });

  test('the janitor removes a left-behind file after the other process lets go of coordination', async () => {
    const { dir, lockPath, events, id, coordinator: other } = await leftBehind();

    expect(await events.next(() => true)).toEqual({ path: lockPath(id), outcome: 'deferred', attempt: 1 });
    await other.release();
    const removed = await events.next((event) => event.outcome !== 'deferred');

    expect(removed).toEqual({ path: lockPath(id), outcome: 'removed', attempt: events.seen.length });
    expect(events.seen.slice(0, -1).map((event) => event.outcome)).toEqual(Array(events.seen.length - 1).fill('deferred'));
    expect(sorted(dir)).toEqual(['.coordination.lock']);
  });

  test('the janitor finishes a left-behind file someone else removed without waiting for coordination', async () => {
    const { dir, lockPath, events, id } = await leftBehind();
    // Another process's first-use sweep, say; coordination stays held elsewhere throughout.
    unlinkSync(lockPath(id));

    expect(await events.next(() => true)).toEqual({ path: lockPath(id), outcome: 'gone', attempt: 1 });
    // Past the next retry's time: the file was finished, nothing is retried.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events.seen).toEqual([{ path: lockPath(id), outcome: 'gone', attempt: 1 }]);
    expect(sorted(dir)).toEqual(['.coordination.lock']);
  });

  test('the janitor leaves a left-behind file alone once another live process owns it', async () => {
    const { dir, lockPath, events, id, coordinator } = await leftBehind();
    const owner = await hold(lockPath(id), 'exclusive');
    await coordinator.release();

    const settled = await events.next((event) => event.outcome !== 'deferred');

    expect(settled).toEqual({ path: lockPath(id), outcome: 'owned', attempt: events.seen.length });
    expect(sorted(dir)).toEqual(['.coordination.lock', `${id}.lock`].sort());
    expect(kernelLocksOn(lockPath(id))).toEqual([{ type: 'FLOCK', access: 'WRITE', pid: owner.pid }]);
  });

  test('close releases every owned lock, reports each result and rejects waiting acquisitions', async () => {
    const { home, dir, coordination } = tempHome();
    const locks = manager(home);
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await locks.acquire(a);
    await locks.acquire(b);
    await hold(coordination, 'exclusive');
    const waiting = locks.acquire(c);

    expect(locks.close()).toEqual(new Map([[a, 'leftBehind'], [b, 'leftBehind']]));

    await expect(waiting).rejects.toThrow('coordination poller is closed');
    await expect(locks.acquire(randomUUID())).rejects.toThrow('writer lock manager is closed');
    expect(locks.ownedCount()).toBe(0);
    expect(sorted(dir)).toEqual(['.coordination.lock', `${a}.lock`, `${b}.lock`].sort());
    expect(locks.close()).toEqual(new Map());
  });
});

describe('stale sweep', () => {
  test('the first acquisition removes unowned uuid lock files and keeps other names and files another process owns', async () => {
    const { home, dir, lockPath } = tempHome();
    mkdirSync(dir, { recursive: true });
    const [stale, owned, fresh] = [randomUUID(), randomUUID(), randomUUID()];
    writeFileSync(lockPath(stale), '');
    writeFileSync(join(dir, 'not-a-uuid.lock'), '');
    writeFileSync(join(dir, 'other.txt'), '');
    await hold(lockPath(owned), 'exclusive');

    expect((await manager(home).acquire(fresh)).kind).toBe('acquired');

    expect(sorted(dir)).toEqual(['.coordination.lock', 'not-a-uuid.lock', 'other.txt', `${owned}.lock`, `${fresh}.lock`].sort());
  });

  test('the sweep is skipped for good when coordination is busy at the first acquisition, as in Codex', async () => {
    const { home, dir, coordination, lockPath } = tempHome();
    mkdirSync(dir, { recursive: true });
    const stale = randomUUID();
    writeFileSync(lockPath(stale), '');
    const reader = await hold(coordination, 'shared');
    const locks = manager(home);
    const [first, second] = [randomUUID(), randomUUID()];

    // Shared coordination held elsewhere: the exclusive try fails, the shared poll succeeds at once.
    expect((await locks.acquire(first)).kind).toBe('acquired');
    await reader.release();
    expect((await locks.acquire(second)).kind).toBe('acquired');

    expect(sorted(dir)).toEqual(['.coordination.lock', `${stale}.lock`, `${first}.lock`, `${second}.lock`].sort());
  });
});
