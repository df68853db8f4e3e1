// The host's warm-up: its steps run in order, one per iteration of the event loop, so a request that
// arrives between them is answered between them.
import { expect, test, vi } from 'vitest';

const done = vi.hoisted((): string[] => []);
vi.mock('../../../../src/main/protocol/uuid.js', () => ({ prepareUuids: () => void done.push('ids') }));
vi.mock('../../../../src/main/lazy-builtin.js', () => ({ fsPromises: () => void done.push('fs') }));

const { warmUpHost } = await import('../../../../src/main/host/warm-up.js');
// The time zone's step reads the local time: the first local-time reading loads the time zone.
vi.spyOn(Date.prototype, 'getHours').mockImplementation(() => (done.push('time'), 0));

type Ctx = Parameters<typeof warmUpHost>[0];
const nextIteration = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What had run right after the call, then after each of five iterations of the event loop. */
async function stepsSeen(ctx: Ctx): Promise<string[][]> {
  done.length = 0;
  warmUpHost(ctx);
  const seen = [[...done]];
  for (let iteration = 0; iteration < 5; iteration += 1) {
    await nextIteration();
    seen.push([...done]);
  }
  return seen;
}

/** A host whose steps record themselves; `prepare` stands for the lock backend's. */
function host(prepare?: () => void): Ctx & { logs: unknown[][] } {
  const logs: unknown[][] = [];
  return { pool: { warmUp: () => void done.push('pool') }, locks: prepare ? { prepare } : {}, log: (...entry: unknown[]) => void logs.push(entry), logs } as unknown as Ctx & { logs: unknown[][] };
}

test('starts the pool at once, then prepares ids, the writer locks, fs/promises and the time zone, each in an iteration of its own, once per host', async () => {
  const ctx = host(() => void done.push('locks'));
  expect(await stepsSeen(ctx)).toEqual([
    ['pool'],
    ['pool', 'ids'],
    ['pool', 'ids', 'locks'],
    ['pool', 'ids', 'locks', 'fs'],
    ['pool', 'ids', 'locks', 'fs', 'time'],
    ['pool', 'ids', 'locks', 'fs', 'time'],
  ]);
  expect(await stepsSeen(ctx)).toEqual([[], [], [], [], [], []]);
  expect(ctx.logs).toEqual([]);
});

test('a lock backend with nothing to prepare is skipped, and a step that fails is logged, not thrown', async () => {
  const withoutLocks = [['pool'], ['pool', 'ids'], ['pool', 'ids'], ['pool', 'ids', 'fs'], ['pool', 'ids', 'fs', 'time'], ['pool', 'ids', 'fs', 'time']];
  expect(await stepsSeen(host())).toEqual(withoutLocks);
  const failing = host(() => {
    throw new Error('no binding');
  });
  expect(await stepsSeen(failing)).toEqual(withoutLocks);
  expect(failing.logs).toEqual([['warn', 'a warm-up step failed', { step: 'writer locks', error: 'Error: no binding' }]]);
});
