import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { holdMainYoungGeneration } from '../../../../src/main/pool/heap-limits.js';

const newSpaceBytes = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

// Objects that survive scavenges: what makes V8 grow the semi-spaces.
function keepManyObjects(): unknown[] {
  const kept: unknown[] = [];
  for (let i = 0; i < 300_000; i += 1) kept.push({ i, text: `thread-${i}`, nested: {} });
  return kept;
}

test('after a worker starts, holding the young generation keeps this isolate\'s new space at its size while many objects survive', async () => {
  // Starting a worker is what resets the process's V8 flags, so the hold comes after it.
  const worker = new Worker('setTimeout(() => undefined, 60_000)', { eval: true });
  await new Promise((resolve) => worker.once('online', resolve));
  holdMainYoungGeneration();
  const before = newSpaceBytes();
  // V8's largest new space on 64-bit hosts is 3 × 16 MB semi-spaces' worth; below it, growth would show.
  expect(before).toBeLessThan(32 * 1024 * 1024);
  const kept = keepManyObjects();
  expect(newSpaceBytes()).toBe(before);
  expect(kept.length).toBe(300_000);
  await worker.terminate();
});
