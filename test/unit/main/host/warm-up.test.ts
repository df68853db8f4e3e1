// The host's warm-up: its steps run in order, one per turn of the event loop, so a request that
// arrives between them is answered between them.
import { expect, test } from 'vitest';
import { warmUpHost } from '../../../../src/main/host/warm-up.js';
import { uuidv7 } from '../../../../src/main/protocol/uuid.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('starts the pool at once, then prepares ids and the writer locks, each in a turn of its own', async () => {
  const done: string[] = [];
  const ctx = {
    pool: { warmUp: () => void done.push('pool') },
    locks: { prepare: () => void done.push('locks') },
  } as unknown as Parameters<typeof warmUpHost>[0];
  warmUpHost(ctx);
  const seen = [[...done]];
  // A turn queued now runs between the first step and the next ones.
  await nextTurn();
  seen.push([...done]);
  await nextTurn();
  await nextTurn();
  seen.push([...done]);
  expect(seen).toEqual([['pool'], ['pool'], ['pool', 'locks']]);
  expect(uuidv7(Date.UTC(2026, 11, 3))).toMatch(/^01a23933-6800-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('a backend with nothing to prepare is skipped', async () => {
  const done: string[] = [];
  warmUpHost({ pool: { warmUp: () => void done.push('pool') }, locks: {} } as unknown as Parameters<typeof warmUpHost>[0]);
  for (let turn = 0; turn < 3; turn += 1) await nextTurn();
  expect(done).toEqual(['pool']);
});
