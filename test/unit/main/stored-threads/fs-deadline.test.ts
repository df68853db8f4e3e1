import { expect, test } from 'vitest';
import { internalError, invalidRequest } from '../../../../src/common/errors.js';
import { withFsDeadline } from '../../../../src/main/store/files/fs-deadline.js';

test('a file operation that settles in time gives its result', async () => {
  expect(await withFsDeadline(Promise.resolve(7), 'reading x')).toBe(7);
});

test('a failed one is an internal error naming what was being done, and an RpcError stays as it is', async () => {
  await expect(withFsDeadline(Promise.reject(new Error('EIO: i/o error')), 'reading x')).rejects.toEqual(internalError('reading x failed: Error: EIO: i/o error'));
  const refusal = invalidRequest('no rollout found for thread id y');
  await expect(withFsDeadline(Promise.reject(refusal), 'reading x')).rejects.toBe(refusal);
});

test('one that never settles is an internal error at the deadline', async () => {
  await expect(withFsDeadline(new Promise(() => undefined), 'renaming x', 10)).rejects.toEqual(internalError('renaming x took longer than 10 ms'));
});
