// A filesystem that never answers (a hung network mount) must not leave a request waiting on
// the rollout index: the lookup fails at the home's file deadline instead.
import { afterEach, expect, test, vi } from 'vitest';
import { internalError } from '../../../../src/common/errors.js';
import { threadIdOf, type ThreadId } from '../../../../src/common/thread-id.js';

const never = () => new Promise<never>(() => undefined);
vi.mock('../../../../src/main/lazy-builtin.js', () => ({ fsPromises: () => ({ access: never, lstat: never, readdir: never }) }));

const { RolloutIndex } = await import('../../../../src/main/store/files/rollout-index.js');
const A = '01a23644-4410-7392-9ce9-3a08921e3af1' as ThreadId;

afterEach(() => {
  vi.useRealTimers();
});

test.each([
  ['a remembered path whose check hangs', (index: InstanceType<typeof RolloutIndex>) => index.remember(A, `/home/sessions/rollout-2026-12-01T10-00-00-${A}.jsonl`)],
  ['a walk of sessions/ that hangs', () => undefined],
])('%s fails at the deadline with an internal error', async (_case, prepare) => {
  vi.useFakeTimers();
  const index = new RolloutIndex('/home');
  prepare(index);
  const found = index.find(threadIdOf(A.toUpperCase()));
  const settled = expect(found).rejects.toEqual(internalError(`finding the rollout of thread ${A} took longer than 10000 ms`));
  await vi.advanceTimersByTimeAsync(10_000);
  await settled;
});
