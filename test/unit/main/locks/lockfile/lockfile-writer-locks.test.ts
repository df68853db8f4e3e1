import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, rmdirSync, utimesSync } from 'node:fs';
import fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type CoordinationHolder, holdCoordination } from '../../../../../bench/lib/coordination-holder.js';
import { leaseExpiry } from '../../../../../src/common/writer-lease.js';
import { type LockLoss, LockfileWriterLocks, type LockfileWriterLocksOptions } from '../../../../../src/main/store/files/locks/lockfile/lockfile-writer-locks.js';

// The shortest timing the configuration accepts: a heartbeat every second, stale after three.
// (With fewer than three heartbeats per stale time the lease, one heartbeat short of it, would
// lapse before each refresh could renew it.)
const TIMING = { staleMs: 3_000, updateMs: 1_000 };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempHome() {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-lockfile-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const dir = join(home, 'thread-writer-lockdirs');
  return { home, dir, lockPath: (id: string) => join(dir, `${id}.lock`) };
}

/** A backend as one host would build it; two on one home stand for two hosts. */
function backend(home: string, options: Partial<LockfileWriterLocksOptions> = {}): LockfileWriterLocks {
  const created = new LockfileWriterLocks(home, { ...TIMING, ...options });
  // An attempt at coordination still in flight at close would otherwise create (then remove)
  // the coordination directory while the home is being removed.
  cleanups.push(() => {
    created.close();
    return created.settled();
  });
  return created;
}

async function holdFromOutside(home: string): Promise<CoordinationHolder> {
  const holder = await holdCoordination(home, 'lockfile');
  cleanups.push(() => holder.release());
  return holder;
}

/** Resolves with the thread ids the janitor reports, once `count` have been reported. */
function janitorReports(count: number) {
  const seen: string[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  return {
    onJanitorRemoved: (threadId: string, outcome: string) => {
      seen.push(`${threadId} ${outcome}`);
      if (seen.length === count) done();
    },
    finished: finished.then(() => seen),
  };
}

/** Acquires `id`, which must be free. */
async function acquireFree(locks: LockfileWriterLocks, id: string) {
  const result = await locks.acquire(id);
  if (result.kind !== 'acquired') throw new Error(`${id}: ${result.kind}`);
  return result.lock;
}

function nextLoss(): { onLost: (loss: LockLoss) => void; lost: Promise<LockLoss> } {
  let onLost!: (loss: LockLoss) => void;
  const lost = new Promise<LockLoss>((resolve) => (onLost = resolve));
  return { onLost, lost };
}

describe('acquire', () => {
  test('acquire creates the thread lock directory, and a second host is answered activeWriter', async () => {
    const { home, dir } = tempHome();
    const id = randomUUID();
    const first = await backend(home).acquire(id);
    expect(first.kind).toBe('acquired');
    // Coordination is given back just after the acquisition it served.
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([`${id}.lock`]));
    expect(await backend(home).acquire(id)).toEqual({ kind: 'activeWriter' });
  });

  test('a second acquisition of a thread this host owns is answered activeWriter from memory', async () => {
    const { home } = tempHome();
    const locks = backend(home);
    const id = randomUUID();
    await locks.acquire(id);
    expect([await locks.acquire(id), locks.ownedCount(), locks.pendingCount()]).toEqual([{ kind: 'activeWriter' }, 1, 0]);
  });

  test('acquisitions wait while another host holds coordination and succeed after it lets go', async () => {
    const { home } = tempHome();
    const locks = backend(home);
    const holder = await holdFromOutside(home);
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const waiting = ids.map((id) => locks.acquire(id));
    await vi.waitFor(() => expect(locks.pendingCount()).toBe(3));
    await holder.release();
    expect((await Promise.all(waiting)).map((r) => r.kind)).toEqual(['acquired', 'acquired', 'acquired']);
    expect(locks.ownedCount()).toBe(3);
  });

  test('an acquisition times out after its timeoutMs while coordination stays held and creates nothing', async () => {
    const { home, dir } = tempHome();
    const locks = backend(home);
    await holdFromOutside(home);
    const started = Date.now();
    expect(await locks.acquire(randomUUID(), { timeoutMs: 200 })).toEqual({ kind: 'timedOut' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(readdirSync(dir)).toEqual(['.coordination.lock']);
  });

  test('a lock directory nobody refreshed for staleMs is taken over', async () => {
    const { home, lockPath } = tempHome();
    const id = randomUUID();
    mkdirSync(lockPath(id), { recursive: true });
    const longAgo = new Date(Date.now() - 10_000);
    utimesSync(lockPath(id), longAgo, longAgo);
    const result = await backend(home).acquire(id);
    expect(result.kind).toBe('acquired');
  });

  test('a thread id that could name another directory is refused before touching the disk', async () => {
    const { home, dir } = tempHome();
    const locks = backend(home);
    for (const bad of ['', '.coordination', '../x', 'a/b', 'a\0b']) {
      await expect(locks.acquire(bad)).rejects.toThrow(new TypeError(`not a lockable thread id: ${JSON.stringify(bad)}`));
    }
    expect(existsSync(dir)).toBe(false);
  });

  test('a filesystem slower than the deadline times the acquisition out, and the late lock is given back', async () => {
    const { home, lockPath } = tempHome();
    // mkdir of the thread directory answers after 600 ms, as a stalled network mount might.
    const slow = { ...fs, mkdir: (path: string, callback: (error: Error | null) => void) => {
      if (path.endsWith('.coordination.lock')) return fs.mkdir(path, callback);
      setTimeout(() => fs.mkdir(path, callback), 600);
    } };
    const reports = janitorReports(1);
    const locks = backend(home, { fs: slow, onJanitorRemoved: reports.onJanitorRemoved });
    const id = randomUUID();
    expect(await locks.acquire(id, { timeoutMs: 200 })).toEqual({ kind: 'timedOut' });
    expect(await reports.finished).toEqual([`${id} removed`]);
    expect([existsSync(lockPath(id)), locks.ownedCount()]).toEqual([false, 0]);
  });
});

describe('release', () => {
  test('release gives up ownership at once and the janitor removes the directory under coordination', async () => {
    const { home, dir } = tempHome();
    const reports = janitorReports(1);
    const locks = backend(home, { onJanitorRemoved: reports.onJanitorRemoved });
    const id = randomUUID();
    const lock = await acquireFree(locks, id);
    expect([locks.release(lock), locks.ownedCount(), locks.release(lock)]).toEqual(['leftBehind', 0, 'alreadyReleased']);
    expect(await reports.finished).toEqual([`${id} removed`]);
    // Coordination is given back right after the batch that removed it.
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([]));
    expect((await backend(home).acquire(id)).kind).toBe('acquired');
  });

  test('a release while another host holds coordination leaves the directory until it lets go', async () => {
    const { home, dir } = tempHome();
    const reports = janitorReports(1);
    const locks = backend(home, { onJanitorRemoved: reports.onJanitorRemoved });
    const id = randomUUID();
    const lock = await acquireFree(locks, id);
    const holder = await holdFromOutside(home);
    expect(locks.release(lock)).toBe('leftBehind');
    // The janitor's run is waiting for coordination: the directory stays meanwhile.
    await vi.waitFor(() => expect(locks.pendingCount()).toBe(1));
    expect([readdirSync(dir).sort(), locks.leftoverCount()]).toEqual([['.coordination.lock', `${id}.lock`], 1]);
    await holder.release();
    expect(await reports.finished).toEqual([`${id} removed`]);
    // Coordination is given back right after the batch that removed it.
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([]));
  });

  test('this host re-acquiring a thread whose directory waits for the janitor adopts it', async () => {
    const { home, lockPath } = tempHome();
    const locks = backend(home);
    const id = randomUUID();
    const first = await acquireFree(locks, id);
    const holder = await holdFromOutside(home);
    locks.release(first);
    const again = locks.acquire(id);
    await holder.release();
    expect([(await again).kind, existsSync(lockPath(id)), locks.ownedCount()]).toEqual(['acquired', true, 1]);
  });

  test('close gives up every owned lock and rejects waiting acquisitions', async () => {
    const { home } = tempHome();
    const locks = backend(home);
    const id = randomUUID();
    await locks.acquire(id);
    await holdFromOutside(home);
    const waiting = locks.acquire(randomUUID());
    await vi.waitFor(() => expect(locks.pendingCount()).toBe(1));
    expect([...locks.close()]).toEqual([[id, 'leftBehind']]);
    await expect(waiting).rejects.toThrow('coordination queue is closed');
    expect(locks.ownedCount()).toBe(0);
  });
});

describe('a compromised lock', () => {
  test('a directory removed under its owner is reported lost at the next heartbeat', async () => {
    const { home, lockPath } = tempHome();
    const { onLost, lost } = nextLoss();
    const locks = backend(home, { onLost });
    const id = randomUUID();
    await locks.acquire(id);
    rmdirSync(lockPath(id));
    const loss = await lost;
    expect([loss.threadId, loss.message.startsWith('ENOENT'), locks.ownedCount()]).toEqual([id, true, 0]);
  });

  test('a directory another host took over (its mtime is not ours) is reported lost', async () => {
    const { home, lockPath } = tempHome();
    const { onLost, lost } = nextLoss();
    const locks = backend(home, { onLost });
    const id = randomUUID();
    await locks.acquire(id);
    const theirs = new Date(Date.now() + 1_500);
    utimesSync(lockPath(id), theirs, theirs);
    expect(await lost).toEqual({ threadId: id, message: 'Unable to update lock within the stale threshold' });
    expect(locks.ownedCount()).toBe(0);
  });
});

describe('a heartbeat answered after a takeover', () => {
  test('a stat whose answer is delayed past the stale time renews nothing: the owner loses the lock and the new owner keeps it', async () => {
    const { home, lockPath } = tempHome();
    const id = randomUUID();
    // The next stat of the thread's directory is answered at once by the disk, but its reply
    // reaches the heartbeat only when the test lets it (a slow network reply, a paused host).
    let hold = false;
    let answered!: () => void;
    const statAnswered = new Promise<void>((resolve) => (answered = resolve));
    let deliver!: () => void;
    const delivered = new Promise<void>((resolve) => (deliver = resolve));
    const refreshesIssued: string[] = [];
    const delayed = {
      ...fs,
      stat: (path: string, callback: (error: Error | null, stats: fs.Stats) => void) =>
        fs.stat(path, (error, stats) => {
          if (!hold || path !== lockPath(id)) return callback(error, stats);
          hold = false;
          answered();
          void delivered.then(() => callback(error, stats));
        }),
      utimes: (path: string, atime: Date, mtime: Date, callback: (error: Error | null) => void) => {
        if (!hold && path === lockPath(id)) refreshesIssued.push(path);
        fs.utimes(path, atime, mtime, callback);
      },
    };
    const { onLost, lost } = nextLoss();
    const paused = backend(home, { fs: delayed, onLost });
    const lock = await acquireFree(paused, id);
    hold = true;
    await statAnswered;
    refreshesIssued.length = 0;
    const expiry = leaseExpiry(lock.lease);
    // Another host takes the directory over once nobody has refreshed it for staleMs.
    const lossesOfNewOwner: LockLoss[] = [];
    const newOwner = backend(home, { onLost: (loss) => lossesOfNewOwner.push(loss) });
    let taken = await newOwner.acquire(id, { timeoutMs: 500 });
    while (taken.kind !== 'acquired') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      taken = await newOwner.acquire(id, { timeoutMs: 500 });
    }
    const theirs = taken.lock;
    deliver();
    expect(await lost).toEqual({
      threadId: id,
      message: `the writer lease of ${lockPath(id)} ran out at ${new Date(expiry).toISOString()}, before its heartbeat could refresh it; another host may own it now`,
    });
    expect([leaseExpiry(lock.lease), paused.ownedCount(), refreshesIssued]).toEqual([0, 0, []]);
    // The new owner's heartbeats go on finding their own mtime: two of them, and it still owns.
    const leaseOfNewOwner = leaseExpiry(theirs.lease);
    await new Promise((resolve) => setTimeout(resolve, 2 * TIMING.updateMs + 200));
    expect([newOwner.ownedCount(), lossesOfNewOwner, leaseExpiry(theirs.lease) > leaseOfNewOwner]).toEqual([1, [], true]);
  });
});

describe('ESTALE from a lock directory (a network home racing a takeover)', () => {
  /** An fs whose mkdir of paths ending in `suffix` answers ESTALE `times` times (forever at Infinity). */
  function staleMkdir(suffix: string, times: number) {
    let left = times;
    return {
      ...fs,
      mkdir: (path: string, callback: (error: Error | null) => void) => {
        if (!path.endsWith(suffix) || left <= 0) return fs.mkdir(path, callback);
        left -= 1;
        setImmediate(() => callback(Object.assign(new Error(`ESTALE: stale file handle, mkdir '${path}'`), { code: 'ESTALE' })));
      },
    };
  }

  test('is contention: the thread lock is retried within the deadline and taken once the answer clears', async () => {
    const { home, lockPath } = tempHome();
    const id = randomUUID();
    const logged: string[] = [];
    const locks = backend(home, { fs: staleMkdir(`${id}.lock`, 2), log: (level, message, fields) => logged.push(`${level} ${message} ${fields?.error}`) });
    const result = await locks.acquire(id, { timeoutMs: 5_000 });
    const warning = `warn a thread lock directory answered as if another host were changing it; retrying ESTALE: stale file handle, mkdir '${lockPath(id)}'`;
    expect([result.kind, existsSync(lockPath(id)), logged.filter((line) => line.startsWith('warn'))]).toEqual(['acquired', true, [warning, warning]]);
  });

  test('is contention for coordination too: retried, then the acquisition goes ahead', async () => {
    const { home } = tempHome();
    const locks = backend(home, { fs: staleMkdir('.coordination.lock', 3) });
    expect((await locks.acquire(randomUUID(), { timeoutMs: 5_000 })).kind).toBe('acquired');
  });

  test('an answer that never clears times the acquisition out, naming ESTALE', async () => {
    const { home, lockPath } = tempHome();
    const id = randomUUID();
    const locks = backend(home, { fs: staleMkdir(`${id}.lock`, Infinity) });
    expect(await locks.acquire(id, { timeoutMs: 300 })).toEqual({
      kind: 'timedOut',
      cause: `its lock directory kept answering ESTALE: stale file handle, mkdir '${lockPath(id)}'`,
    });
    expect([existsSync(lockPath(id)), locks.ownedCount(), locks.pendingCount()]).toEqual([false, 0, 0]);
  });
});

describe('timing', () => {
  test('a heartbeat longer than a third of the stale time is refused before any lock directory is made: the lease would lapse between heartbeats', async () => {
    const { home, dir } = tempHome();
    const locks = backend(home, { staleMs: 2_000, updateMs: 1_000 });
    await expect(locks.acquire(randomUUID())).rejects.toThrow(new RangeError('lock heartbeat every 1000 ms is more than a third of the stale time (2000 ms)'));
    expect(existsSync(join(dir, '.coordination.lock'))).toBe(false);
  });
});
