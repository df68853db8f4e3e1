import { copyFile, mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { findRolloutPath } from '../../../../src/main/store/files/rollout-locator.js';
import { listRollouts } from '../../../helpers/list-rollouts.js';
import { parseRolloutFileName, rolloutPathFor } from '../../../../src/common/rollout/rollout-path.js';
import { threadIdOf, type ThreadId } from '../../../../src/common/thread-id.js';

const FIXTURES = new URL('../../../fixtures/rollouts/', import.meta.url);
const LEGACY_ID = '01a23672-ea80-7301-8e95-16757bdc1196' as ThreadId;
const PAGINATED_ID = '01a23672-eafd-79e2-a787-4ec115bd4630' as ThreadId;
const OTHER_ID = '01a23699-0000-7000-8000-000000000001' as ThreadId;
const LEGACY_MTIME = new Date('2026-12-02T11:20:00.000Z');
const PAGINATED_MTIME = new Date('2026-12-02T11:15:00.000Z');

const nameFor = (id: string): string => `rollout-2026-12-02T11-10-30-${id}.jsonl`;

let home: string;
let day: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rollout-locator-'));
  day = join(home, 'sessions', '2026', '12', '02');
  await mkdir(day, { recursive: true });
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function placeSample(sample: 'legacy' | 'paginated', id: string, at: string, mtime: Date): Promise<string> {
  const path = join(at, nameFor(id));
  await mkdir(dirname(path), { recursive: true });
  await copyFile(new URL(`rollout-${sample}-two-turns.jsonl`, FIXTURES), path);
  await utimes(path, mtime, mtime);
  return path;
}

describe('rollout paths', () => {
  test('the path uses the local date and time of creation', () => {
    const saved = process.env.TZ;
    const at = Date.parse('2026-12-02T23:30:05.123Z');
    try {
      process.env.TZ = 'UTC';
      expect(rolloutPathFor('/h', LEGACY_ID, at)).toBe(`/h/sessions/2026/12/02/rollout-2026-12-02T23-30-05-${LEGACY_ID}.jsonl`);
      process.env.TZ = 'Asia/Tokyo';
      expect(rolloutPathFor('/h', LEGACY_ID, at)).toBe(`/h/sessions/2026/12/03/rollout-2026-12-03T08-30-05-${LEGACY_ID}.jsonl`);
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  test('a rollout file name gives back its thread id and its time read as UTC, and other names give null', () => {
    const nameTimeMs = Date.parse('2026-12-02T11:10:30Z');
    expect(parseRolloutFileName(nameFor(LEGACY_ID))).toEqual({ threadId: LEGACY_ID, nameTimeMs });
    expect(parseRolloutFileName(nameFor(threadIdOf(LEGACY_ID.toUpperCase())))).toEqual({ threadId: LEGACY_ID, nameTimeMs });
    // A name that is no real time (Feb 30, Feb 29 of a common year, month 13, hour 24, second 60) keeps its id but has no time.
    for (const stamp of ['2026-02-30T11-10-30', '2100-02-29T11-10-30', '2026-13-02T11-10-30', '2026-12-02T24-00-00', '2026-12-02T11-10-60']) {
      expect(parseRolloutFileName(`rollout-${stamp}-${LEGACY_ID}.jsonl`)).toEqual({ threadId: LEGACY_ID, nameTimeMs: null });
    }
    for (const at of ['2024-02-29T23:59:59Z', '2000-02-29T00:00:00Z', '1969-12-31T23:59:59Z', '0099-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) {
      const stamp = at.slice(0, 19).replace(/:/g, '-');
      expect(parseRolloutFileName(`rollout-${stamp}-${LEGACY_ID}.jsonl`)).toEqual({ threadId: LEGACY_ID, nameTimeMs: new Date(at).getTime() });
    }
    expect(parseRolloutFileName(`${nameFor(LEGACY_ID)}.zst`)).toBeNull();
    expect(parseRolloutFileName(`rollout-2026-12-02T11-10-30-not-a-uuid.jsonl`)).toBeNull();
    expect(parseRolloutFileName('notes.txt')).toBeNull();
  });
});

describe('finding one rollout', () => {
  test('the rollout of a thread is found by its id anywhere under sessions', async () => {
    const path = await placeSample('legacy', LEGACY_ID, day, LEGACY_MTIME);
    await placeSample('paginated', PAGINATED_ID, join(home, 'sessions', '2025', '01', '01'), PAGINATED_MTIME);
    expect(await findRolloutPath(home, LEGACY_ID)).toBe(path);
    expect(await findRolloutPath(home, threadIdOf(LEGACY_ID.toUpperCase()))).toBe(path);
  });

  test('an unknown id, or a home without sessions, finds nothing', async () => {
    await placeSample('legacy', LEGACY_ID, day, LEGACY_MTIME);
    expect(await findRolloutPath(home, OTHER_ID)).toBeNull();
    expect(await findRolloutPath(join(home, 'nowhere'), LEGACY_ID)).toBeNull();
  });

  test('symbolic links are never followed, so nothing outside sessions is found', async () => {
    const outside = join(home, 'outside');
    const target = await placeSample('legacy', LEGACY_ID, outside, LEGACY_MTIME);
    await symlink(outside, join(home, 'sessions', '2026', 'linked-dir'));
    await symlink(target, join(day, nameFor(PAGINATED_ID)));
    expect(await findRolloutPath(home, LEGACY_ID)).toBeNull();
    expect(await findRolloutPath(home, PAGINATED_ID)).toBeNull();
    expect(await listRollouts(home)).toEqual([]);
  });

  test('a sessions directory that is itself a link is not walked', async () => {
    const elsewhere = join(home, 'elsewhere');
    await placeSample('legacy', LEGACY_ID, join(elsewhere, '2026', '12', '02'), LEGACY_MTIME);
    const other = await mkdtemp(join(tmpdir(), 'rollout-locator-home-'));
    try {
      await symlink(elsewhere, join(other, 'sessions'));
      expect(await findRolloutPath(other, LEGACY_ID)).toBeNull();
      expect(await listRollouts(other)).toEqual([]);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('listing rollouts', () => {
  test('each readable rollout is summarised from its head, newest first', async () => {
    const legacy = await placeSample('legacy', LEGACY_ID, day, LEGACY_MTIME);
    const paginated = await placeSample('paginated', PAGINATED_ID, day, PAGINATED_MTIME);
    await writeFile(join(day, 'notes.txt'), 'not a rollout\n');

    expect(await listRollouts(home)).toEqual([
      {
        threadId: PAGINATED_ID,
        path: paginated,
        createdAtMs: Date.parse('2026-12-02T11:10:30.655Z'),
        updatedAtMs: PAGINATED_MTIME.getTime(),
        preview: 'hello',
        modelProvider: 'mock_provider',
        cwd: '/home/me/.codex',
        cliVersion: '0.171.0',
        source: 'vscode',
        sourceKind: 'vscode',
        originator: 'codex-app-server-tests',
        model: 'mock-model',
        historyMode: 'paginated',
      },
      {
        threadId: LEGACY_ID,
        path: legacy,
        createdAtMs: Date.parse('2026-12-02T11:10:30.530Z'),
        updatedAtMs: LEGACY_MTIME.getTime(),
        preview: 'hello',
        modelProvider: 'mock_provider',
        cwd: '/home/me/.codex',
        cliVersion: '0.171.0',
        source: 'vscode',
        sourceKind: 'vscode',
        originator: 'codex-app-server-tests',
        model: 'mock-model',
        historyMode: 'legacy',
      },
    ]);
  });

  test('files without a parseable session_meta, or whose meta names another thread, are skipped', async () => {
    const legacy = await placeSample('legacy', LEGACY_ID, day, LEGACY_MTIME);
    await writeFile(join(day, nameFor(OTHER_ID)), 'garbage\n{"timestamp":"2026-12-02T11:10:30.545Z","type":"event_msg","payload":{}}\n');
    await placeSample('paginated', '01a23699-0000-7000-8000-000000000002', day, PAGINATED_MTIME);
    expect((await listRollouts(home)).map((summary) => summary.path)).toEqual([legacy]);
  });

  test('a rollout with no user message yet has an empty preview', async () => {
    const path = join(day, nameFor(OTHER_ID));
    const meta = {
      timestamp: '2026-12-02T11:10:30.545Z',
      type: 'session_meta',
      payload: { id: OTHER_ID, timestamp: '2026-12-02T11:10:30.530Z', cwd: '/w', originator: 'o', cli_version: '1', source: 'vscode', model_provider: 'p' },
    };
    await writeFile(path, `${JSON.stringify(meta)}\n`);
    await utimes(path, LEGACY_MTIME, LEGACY_MTIME);
    expect(await listRollouts(home)).toEqual([
      {
        threadId: OTHER_ID,
        path,
        createdAtMs: Date.parse('2026-12-02T11:10:30.530Z'),
        updatedAtMs: LEGACY_MTIME.getTime(),
        preview: '',
        modelProvider: 'p',
        cwd: '/w',
        cliVersion: '1',
        source: 'vscode',
        sourceKind: 'vscode',
        originator: 'o',
        model: null,
        // No history_mode: a rollout older than the field, which is legacy.
        historyMode: 'legacy',
      },
    ]);
  });
});
