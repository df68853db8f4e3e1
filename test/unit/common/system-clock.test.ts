import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from 'vitest';
import { systemClock } from '../../../src/common/clock.js';

test('a zero-delay timer runs in the next iteration of the event loop, before a 1 ms timer, and can be cleared', async () => {
  const order: string[] = [];
  systemClock.setTimeout(() => order.push('1 ms'), 1);
  systemClock.setTimeout(() => order.push('next iteration'), 0);
  const cleared = systemClock.setTimeout(() => order.push('cleared'), 0);
  systemClock.clearTimeout(cleared);
  await sleep(20);
  expect(order).toEqual(['next iteration', '1 ms']);
});

test('a timer with a delay can be cleared', async () => {
  const fired: string[] = [];
  const handle = systemClock.setTimeout(() => fired.push('fired'), 5);
  systemClock.clearTimeout(handle);
  await sleep(20);
  expect(fired).toEqual([]);
});
