// The appender on a lockfile home: each batch is fdatasynced before its append resolves.
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { RolloutAppender } from '../../../../../src/actors/history/files/rollout-appender.js';

let dir: string;
let datasync: ReturnType<typeof vi.spyOn>;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rollout-appender-sync-'));
  // FileHandle is not exported; its prototype is reached through an open handle.
  const probe = await open(join(dir, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
  await probe.close();
  datasync = vi.spyOn(prototype, 'datasync');
});
afterEach(async () => {
  datasync.mockRestore();
  await rm(dir, { recursive: true, force: true });
});

describe('syncing each batch', () => {
  test('every append is synced before it resolves, one sync per batch', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path, { syncEachBatch: true });
    const syncsWhenResolved: number[] = [];
    await appender.append(['{"a":1}', '{"b":2}']).then(() => syncsWhenResolved.push(datasync.mock.calls.length));
    await appender.append(['{"c":3}']).then(() => syncsWhenResolved.push(datasync.mock.calls.length));
    await appender.close();
    expect([syncsWhenResolved, await readFile(path, 'utf8')]).toEqual([[1, 2], '{"a":1}\n{"b":2}\n{"c":3}\n']);
  });

  test('without it (flock homes) nothing is synced', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path);
    await appender.append(['{"a":1}']);
    await appender.close();
    expect(datasync.mock.calls.length).toBe(0);
  });

  test('a failed sync fails its append like a failed write: cut back to the last acknowledged line, later appends refused', async () => {
    const path = join(dir, 'rollout.jsonl');
    const appender = new RolloutAppender(path, { syncEachBatch: true });
    await appender.append(['{"a":1}']);
    datasync.mockImplementationOnce(() => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
    const failed = await appender.append(['{"b":2}']).catch((error: Error) => error.message);
    const later = await appender.append(['{"c":3}']).catch((error: Error) => error.message);
    await appender.close();
    expect([failed, later, await readFile(path, 'utf8')]).toEqual([
      `failed to write to rollout ${path}: EIO: i/o error, fdatasync`,
      `rollout ${path} is unwritable after an earlier failure: failed to write to rollout ${path}: EIO: i/o error, fdatasync`,
      '{"a":1}\n',
    ]);
  });
});
