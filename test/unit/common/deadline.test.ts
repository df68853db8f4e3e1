import { describe, expect, test } from 'vitest';
import type { Clock } from '../../../src/common/clock.js';
import { failWith, withDeadline } from '../../../src/common/deadline.js';

/** A clock whose timers fire only when the test fires them. */
class ManualClock implements Clock {
  readonly timers = new Map<number, { fn: () => void; ms: number }>();
  #nextId = 1;
  now(): number {
    return 0;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.timers.set(id, { fn, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  fireAll(): void {
    for (const [id, timer] of [...this.timers]) {
      this.timers.delete(id);
      timer.fn();
    }
  }
}

const never = new Promise<never>(() => undefined);

describe('withDeadline', () => {
  test('work that settles in time settles the wait as it did, and its timer goes', async () => {
    const clock = new ManualClock();
    const resolved = withDeadline(Promise.resolve('value'), 50, clock, () => 'late');
    const rejected = withDeadline(Promise.reject(new Error('boom')), 50, clock, () => 'late');
    expect(await resolved).toEqual('value');
    await expect(rejected).rejects.toThrow('boom');
    expect(clock.timers.size).toEqual(0);
  });

  test('at the deadline the wait settles as onTimeout does: its value, or its throw', async () => {
    const clock = new ManualClock();
    const valued = withDeadline(never, 50, clock, () => 'late');
    const failed = withDeadline(never, 70, clock, failWith('took too long'));
    expect([...clock.timers.values()].map((timer) => timer.ms)).toEqual([50, 70]);
    clock.fireAll();
    expect(await valued).toEqual('late');
    await expect(failed).rejects.toThrow('took too long');
  });
});
