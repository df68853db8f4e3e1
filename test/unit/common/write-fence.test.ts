import { expect, test } from 'vitest';
import { WriteFence } from '../../../src/common/write-fence.js';

test('the host fences a quiet actor, and the fence is final', () => {
  const buffer = WriteFence.allocate();
  const [host, worker] = [new WriteFence(buffer), new WriteFence(buffer)];
  expect([host.tryFence(), worker.fenced]).toEqual([true, true]);
  worker.enter();
  worker.leave();
  expect([worker.fenced, host.tryFence()]).toEqual([true, false]);
});

test('an actor in a command, or one that left owing lines, cannot be fenced', () => {
  const buffer = WriteFence.allocate();
  const [host, worker] = [new WriteFence(buffer), new WriteFence(buffer)];
  worker.enter();
  expect([host.tryFence(), worker.fenced]).toEqual([false, false]);
  // Owing lines, the actor does not call leave(): it stays active until a clean command ends.
  worker.enter();
  expect(host.tryFence()).toBe(false);
  worker.leave();
  expect([host.tryFence(), worker.fenced]).toEqual([true, true]);
});
