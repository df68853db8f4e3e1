import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { tryEnterCoordination, writerLockPaths } from '../../../../../src/main/store/files/locks/flock/coordination-lock.js';

let home: string | null = null;
afterEach(() => {
  if (home !== null) rmSync(home, { recursive: true, force: true });
  home = null;
});

test('the lock directory is created when it is missing, also after someone removed it', () => {
  home = mkdtempSync(join(tmpdir(), 'coordination-lock-'));
  const paths = writerLockPaths(home);
  const first = tryEnterCoordination(paths, 'exclusive');
  expect(first).toBeDefined();
  first!.exit();
  expect(existsSync(paths.coordination)).toBe(true);
  rmSync(paths.dir, { recursive: true });
  const second = tryEnterCoordination(paths, 'shared');
  expect(second).toBeDefined();
  second!.exit();
  expect(existsSync(paths.coordination)).toBe(true);
});

test('an exclusive hold excludes another attempt through a second description, and is free again after exit', () => {
  home = mkdtempSync(join(tmpdir(), 'coordination-lock-'));
  const paths = writerLockPaths(home);
  const held = tryEnterCoordination(paths, 'exclusive');
  expect(tryEnterCoordination(paths, 'shared')).toBeUndefined();
  held!.exit();
  const again = tryEnterCoordination(paths, 'shared');
  expect(again).toBeDefined();
  again!.exit();
});
