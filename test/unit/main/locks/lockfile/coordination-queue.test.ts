import { describe, expect, test } from 'vitest';
import { type AsyncCoordinationHold, CoordinationQueue } from '../../../../../src/main/store/files/locks/lockfile/coordination-queue.js';
import { FakeClock } from '../../../../helpers/fake-clock.js';

/** Lets every settled promise run its continuations. */
const flush = async () => {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
};

/** Coordination free or held elsewhere; entering and leaving are asynchronous, as on disk. */
class FakeCoordination {
  state: 'free' | 'held' = 'free';
  attempts = 0;
  exits = 0;
  tryEnter = async (): Promise<AsyncCoordinationHold | undefined> => {
    this.attempts += 1;
    if (this.state === 'held') return undefined;
    this.state = 'held';
    return {
      exit: async () => {
        this.exits += 1;
        this.state = 'free';
      },
    };
  };
}

function setup() {
  const clock = new FakeClock();
  const coordination = new FakeCoordination();
  const errors: unknown[] = [];
  const queue = new CoordinationQueue({ clock, pollIntervalMs: 50, tryEnter: () => coordination.tryEnter(), onBackgroundError: (e) => errors.push(e) });
  return { clock, coordination, queue, errors };
}

describe('CoordinationQueue', () => {
  test('items that arrive together are served under one hold, in order', async () => {
    const { coordination, queue } = setup();
    const order: string[] = [];
    const served = ['a', 'b', 'c'].map((name) => queue.enqueue(async () => (order.push(name), name), 1_000, () => undefined));
    expect(await Promise.all(served)).toEqual([
      { kind: 'served', value: 'a' },
      { kind: 'served', value: 'b' },
      { kind: 'served', value: 'c' },
    ]);
    expect([order, coordination.attempts, coordination.exits]).toEqual([['a', 'b', 'c'], 1, 1]);
  });

  test('while coordination is held elsewhere it retries every interval, and times out at the deadline', async () => {
    const { clock, coordination, queue } = setup();
    coordination.state = 'held';
    const outcome = queue.enqueue(async () => 'never', 120, () => undefined);
    await flush();
    clock.advance(50);
    await flush();
    clock.advance(50);
    await flush();
    expect([coordination.attempts, queue.pendingCount()]).toEqual([3, 1]);
    clock.advance(20);
    expect(await outcome).toEqual({ kind: 'timedOut' });
    expect(queue.pendingCount()).toBe(0);
  });

  test('work that finishes after its deadline is handed to abandon, not to the caller', async () => {
    const { clock, queue } = setup();
    let finish!: (value: string) => void;
    const abandoned: string[] = [];
    const outcome = queue.enqueue(() => new Promise<string>((resolve) => (finish = resolve)), 100, (late) => abandoned.push(late));
    await flush();
    clock.advance(100);
    expect(await outcome).toEqual({ kind: 'timedOut' });
    finish('late lock');
    await flush();
    expect(abandoned).toEqual(['late lock']);
  });

  test('a failure to enter coordination rejects everything waiting; close rejects later waits', async () => {
    const { queue } = setup();
    const broken = new CoordinationQueue({
      clock: new FakeClock(),
      pollIntervalMs: 50,
      tryEnter: async () => {
        throw new Error('EACCES');
      },
      onBackgroundError: () => undefined,
    });
    await expect(broken.enqueue(async () => 1, 1_000, () => undefined)).rejects.toThrow('EACCES');
    queue.close();
    await expect(queue.enqueue(async () => 1, 1_000, () => undefined)).rejects.toThrow('coordination queue is closed');
  });

  test('an attempt at coordination in flight at close runs to its end; settled() waits for it to give coordination back', async () => {
    const { coordination, queue } = setup();
    let enter!: () => void;
    const entering = new Promise<void>((resolve) => (enter = resolve));
    const slowEnter = coordination.tryEnter;
    coordination.tryEnter = async () => {
      await entering;
      return slowEnter();
    };
    const refused = expect(queue.enqueue(async () => 'never served', 1_000, () => undefined)).rejects.toThrow('coordination queue is closed');
    await flush();
    queue.close();
    await refused;
    let settled = false;
    void queue.settled().then(() => (settled = true));
    await flush();
    expect([settled, coordination.state]).toEqual([false, 'free']);
    enter();
    await queue.settled();
    expect([settled, coordination.attempts, coordination.exits, coordination.state]).toEqual([true, 1, 1, 'free']);
  });
});
