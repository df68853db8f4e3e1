// mapLimited: results in the items' order, never more than the limit running at once.
import { expect, test } from 'vitest';
import { mapLimited } from '../../../src/main/map-limited.js';

test('runs at most `limit` at once and returns the results in the items\' order', async () => {
  let running = 0;
  let most = 0;
  const items = Array.from({ length: 20 }, (_, i) => i);
  const results = await mapLimited(items, 3, async (i) => {
    running += 1;
    most = Math.max(most, running);
    // Later items finish first: the order of results must not follow completion.
    await new Promise((resolve) => setTimeout(resolve, 20 - i));
    running -= 1;
    return i * 10;
  });
  expect([results, most, running]).toEqual([items.map((i) => i * 10), 3, 0]);
  expect(await mapLimited([], 3, async () => 1)).toEqual([]);
});
