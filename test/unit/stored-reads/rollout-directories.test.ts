// The walk of <home>/sessions kept between listings: newest name first, rollout names only, no
// links followed; a directory is read again when its mtime changed, or when it was read while
// its mtime was too recent to tell a later change within the same tick. Real temp directories;
// the walk never opens the files, so their content is anything.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { RolloutDirectories, type RolloutFile } from '../../../src/stored-reads/rollout-directories.js';

const ID_A = '01a23672-ea80-7301-8e95-16757bdc1196';
const ID_B = '01a23672-eafd-79e2-a787-4ec115bd4630';
const ID_C = '01a23699-0000-7000-8000-000000000001';
const ID_D = '01a23699-0000-7000-8000-000000000002';
const ID_UPPER = '01A23699-ABCD-7000-8000-0000000000EF';

let home: string;
let sessions: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'rollout-directories-'));
  sessions = join(home, 'sessions');
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

/** `sessions/YYYY/MM/DD` for a `YYYY-MM-DD` date. */
const dayDir = (date: string): string => join(sessions, ...date.split('-'));
const nameFor = (stamp: string, id: string): string => `rollout-${stamp}-${id}.jsonl`;

/** Writes a rollout named for `stamp` (`YYYY-MM-DDThh-mm-ss`) in its day directory; returns the file the walk should give. */
function place(stamp: string, id: string): RolloutFile {
  const dir = dayDir(stamp.slice(0, 10));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, nameFor(stamp, id));
  writeFileSync(path, '{}\n');
  const [date, time] = stamp.split('T') as [string, string];
  return { path, threadId: id.toLowerCase(), nameTimeMs: Date.parse(`${date}T${time.replaceAll('-', ':')}Z`) };
}

/** Sets the mtime of `root` and every directory under it. */
function touchAll(root: string, at: Date): void {
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) visit(join(dir, entry.name));
    utimesSync(dir, at, at);
  };
  visit(root);
}

/** Every directory's mtime an hour old: settled. */
const settle = (root: string): void => touchAll(root, new Date(Date.now() - 3_600_000));

/**
 * Every directory's mtime an hour ahead: not settled, however long the walk takes to start (a
 * mtime just left by a write would be, on a machine paused for 100 ms before the walk).
 */
const unsettle = (root: string): void => touchAll(root, new Date(Date.now() + 3_600_000));

describe('what the walk returns', () => {
  test('every rollout, newest name first across day directories and within one', () => {
    const older = place('2026-12-01T23-59-59', ID_A);
    const middle = place('2026-12-02T11-10-30', ID_B);
    const newest = place('2026-12-02T11-10-31', ID_C);
    const lastYear = place('2025-01-31T00-00-00', ID_D);
    expect(new RolloutDirectories().walk(sessions)).toEqual({ files: [newest, middle, older, lastYear], changed: true });
  });

  test('each file is its path, its lower-cased thread id and its name\'s time as UTC ms', () => {
    const stamp = '2026-12-02T11-10-30';
    place(stamp, ID_UPPER);
    const path = join(sessions, '2026', '12', '02', nameFor(stamp, ID_UPPER));
    expect(new RolloutDirectories().walk(sessions).files).toEqual([{ path, threadId: ID_UPPER.toLowerCase(), nameTimeMs: Date.parse('2026-12-02T11:10:30Z') }]);
  });

  test('names that are no rollout, or no real time, are left out', () => {
    const kept = place('2026-12-02T11-10-30', ID_A);
    const day = dayDir('2026-12-02');
    writeFileSync(join(day, 'notes.txt'), 'x');
    writeFileSync(join(day, `${nameFor('2026-12-02T11-10-31', ID_B)}.zst`), 'x');
    writeFileSync(join(day, `${nameFor('2026-12-02T11-10-32', ID_C)}~`), 'x');
    mkdirSync(dayDir('2026-02-30'), { recursive: true });
    writeFileSync(join(dayDir('2026-02-30'), nameFor('2026-02-30T11-10-30', ID_D)), 'x');
    expect(new RolloutDirectories().walk(sessions)).toEqual({ files: [kept], changed: true });
  });

  test('a missing root gives no files', () => {
    const directories = new RolloutDirectories();
    expect(directories.walk(join(home, 'no-such-sessions'))).toEqual({ files: [], changed: true });
    expect(directories.walk(join(home, 'no-such-sessions'))).toEqual({ files: [], changed: false });
  });

  test('an empty root gives no files', () => {
    mkdirSync(sessions);
    expect(new RolloutDirectories().walk(sessions)).toEqual({ files: [], changed: true });
  });
});

describe('links are never followed', () => {
  test('a linked directory of rollouts and a linked rollout file are left out', () => {
    const real = place('2026-12-02T11-10-30', ID_A);
    const elsewhere = join(home, 'elsewhere');
    mkdirSync(join(elsewhere, '12', '02'), { recursive: true });
    writeFileSync(join(elsewhere, '12', '02', nameFor('2026-12-02T11-10-31', ID_B)), 'x');
    writeFileSync(join(elsewhere, nameFor('2026-12-02T11-10-32', ID_C)), 'x');
    symlinkSync(elsewhere, join(sessions, '2026', '11'));
    symlinkSync(join(elsewhere, '12', '02'), join(sessions, '2026', '12', '01'));
    symlinkSync(join(elsewhere, nameFor('2026-12-02T11-10-32', ID_C)), join(dayDir('2026-12-02'), nameFor('2026-12-02T11-10-33', ID_D)));
    expect(new RolloutDirectories().walk(sessions)).toEqual({ files: [real], changed: true });
  });

  test('a root that is itself a link to a real sessions tree gives no files', () => {
    const a = place('2026-12-02T11-10-30', ID_A);
    const linked = join(home, 'linked-sessions');
    symlinkSync(sessions, linked);
    const directories = new RolloutDirectories();
    expect(directories.walk(linked)).toEqual({ files: [], changed: true });
    expect(directories.walk(sessions)).toEqual({ files: [a], changed: true });
  });
});

describe('walks again', () => {
  test('with nothing changed under settled directories, the last result itself, unchanged', () => {
    const files = [place('2026-12-02T11-10-30', ID_B), place('2026-12-01T11-10-30', ID_A)];
    settle(sessions);
    const directories = new RolloutDirectories();
    const first = directories.walk(sessions);
    expect(first).toEqual({ files, changed: true });
    const second = directories.walk(sessions);
    expect(second).toEqual({ files, changed: false });
    expect(second.files).toBe(first.files);
    expect(directories.walk(sessions).files).toBe(first.files);
  });

  test('another root is a change, even when it finds the same files', () => {
    const a = place('2026-12-02T11-10-30', ID_A);
    settle(sessions);
    const directories = new RolloutDirectories();
    const first = directories.walk(sessions);
    const again = directories.walk(`${sessions}/.`);
    expect(again).toEqual({ files: [{ ...a, path: a.path.replace(sessions, `${sessions}/.`) }], changed: true });
    expect(again.files).not.toBe(first.files);
  });

  test('a file added to a settled day directory is seen', () => {
    const a = place('2026-12-02T11-10-30', ID_A);
    settle(sessions);
    const directories = new RolloutDirectories();
    expect(directories.walk(sessions)).toEqual({ files: [a], changed: true });
    const b = place('2026-12-02T11-10-31', ID_B);
    expect(directories.walk(sessions)).toEqual({ files: [b, a], changed: true });
  });

  test('a file deleted from a settled day directory is gone', () => {
    const a = place('2026-12-02T11-10-30', ID_A);
    const b = place('2026-12-02T11-10-31', ID_B);
    settle(sessions);
    const directories = new RolloutDirectories();
    expect(directories.walk(sessions)).toEqual({ files: [b, a], changed: true });
    unlinkSync(b.path);
    expect(directories.walk(sessions)).toEqual({ files: [a], changed: true });
  });

  test('a settled day directory removed whole takes its files with it', () => {
    const a = place('2026-12-01T11-10-30', ID_A);
    const b = place('2026-12-02T11-10-30', ID_B);
    const c = place('2026-12-02T11-10-31', ID_C);
    settle(sessions);
    const directories = new RolloutDirectories();
    expect(directories.walk(sessions)).toEqual({ files: [c, b, a], changed: true });
    rmSync(dayDir('2026-12-02'), { recursive: true });
    expect(directories.walk(sessions)).toEqual({ files: [a], changed: true });
  });
});

describe('the file system\'s time granularity', () => {
  /** Adds a rollout to `day` and puts the directory's mtime back as it was: a change within the same tick. */
  function addWithinTheSameTick(day: string, stamp: string, id: string): RolloutFile {
    const before = statSync(day);
    const added = place(stamp, id);
    expect(statSync(day).mtimeMs).not.toBe(before.mtimeMs);
    utimesSync(day, before.atime, before.mtime);
    // The walk cannot tell the change from the mtime alone.
    expect(statSync(day).mtimeMs).toBe(before.mtimeMs);
    return added;
  }

  /** One rollout in one day directory, every mtime made old (settled) or new, walked once. */
  function walkedOnce(mtimes: 'settled' | 'unsettled') {
    const a = place('2026-12-02T11-10-30', ID_A);
    if (mtimes === 'settled') settle(sessions);
    else unsettle(sessions);
    const directories = new RolloutDirectories();
    const first = directories.walk(sessions);
    expect(first).toEqual({ files: [a], changed: true });
    return { a, day: dayDir('2026-12-02'), directories, first };
  }

  test('a directory read while its mtime was too recent is read again, and sees a change its mtime does not show', () => {
    const { a, day, directories } = walkedOnce('unsettled');
    const b = addWithinTheSameTick(day, '2026-12-02T11-10-31', ID_B);
    expect(directories.walk(sessions)).toEqual({ files: [b, a], changed: true });
  });

  test('a directory whose mtime is too recent is read again at every walk, each walk changed, until its mtime is old', () => {
    const { a, directories, first } = walkedOnce('unsettled');
    const second = directories.walk(sessions);
    expect(second).toEqual({ files: [a], changed: true });
    expect(second.files).not.toBe(first.files);
    settle(sessions);
    expect(directories.walk(sessions)).toEqual({ files: [a], changed: true });
    const settled = directories.walk(sessions);
    expect(settled).toEqual({ files: [a], changed: false });
    expect(directories.walk(sessions).files).toBe(settled.files);
  });

  test('a directory read while its mtime was old is trusted on its mtime: a change it does not show is not seen', () => {
    const { a, day, directories, first } = walkedOnce('settled');
    addWithinTheSameTick(day, '2026-12-02T11-10-31', ID_B);
    const second = directories.walk(sessions);
    expect(second).toEqual({ files: [a], changed: false });
    expect(second.files).toBe(first.files);
  });

  test('no directory is trusted longer than 30 s after it was read: a change its mtime hides is seen then', () => {
    const { a, day, directories } = walkedOnce('settled');
    const b = addWithinTheSameTick(day, '2026-12-02T11-10-31', ID_B);
    const readAt = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: readAt + 29_000 });
    try {
      expect(directories.walk(sessions)).toEqual({ files: [a], changed: false });
      vi.setSystemTime(readAt + 31_000);
      expect(directories.walk(sessions)).toEqual({ files: [b, a], changed: true });
    } finally {
      vi.useRealTimers();
    }
  });
});
