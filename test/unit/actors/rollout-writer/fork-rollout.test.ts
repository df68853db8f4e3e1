// Where a fork cuts its source and what its rollout starts with, as codex 0.171.0 writes forks
// (test/fixtures/reference-answers/thread-fork.jsonl): paginated forks name a base ending at the
// task_started of the turn after the last one kept; legacy forks copy the lines before it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ephemeralForkText, fileForkSource, forkStart, storedForkLines } from '../../../../src/actors/rollout-writer/fork-rollout.js';
import { writeForkRollout } from '../../../../src/actors/history/files/fork-file.js';
import { withHistoryBase } from '../../../../src/common/rollout/history-base.js';
import type { ForkRequest } from '../../../../src/common/actor-messages.js';

const FIXTURES = new URL('../../../fixtures/rollouts/', import.meta.url);
const PAGINATED = readFileSync(new URL('rollout-paginated-two-turns.jsonl', FIXTURES), 'utf8');
const LEGACY = readFileSync(new URL('rollout-legacy-two-turns.jsonl', FIXTURES), 'utf8');
const PAGINATED_ID = '01a23672-eafd-79e2-a787-4ec115bd4630';
const LEGACY_ID = '01a23672-ea80-7301-8e95-16757bdc1196';
const FORK_ID = '01a24408-b61d-7823-b6a6-be7fad6599e2';
const TURNS = { paginated: ['01a23672-eb08-77f1-b393-249eaf8bf0cb', '01a23672-eb41-7da0-9ae0-8093131cf0e0'], legacy: ['01a23672-ea8e-7700-a77b-8bf4e723901b', '01a23672-eac1-7962-80a9-60f2ec99781b'] };
const NOW = '2026-12-05T03:00:00.000Z';
// Both samples' second turn starts at their 15th line (ordinal 14 in the paginated one).
const offsetOfLine = (text: string, line: number) => Buffer.byteLength(text.split('\n').slice(0, line).join('\n')) + 1;

let home: string;
let paginatedPath: string;
let legacyPath: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-fork-rollout-'));
  const dir = join(home, 'sessions', '2026', '12', '02');
  mkdirSync(dir, { recursive: true });
  paginatedPath = join(dir, `rollout-2026-12-02T11-10-30-${PAGINATED_ID}.jsonl`);
  legacyPath = join(dir, `rollout-2026-12-02T11-10-30-${LEGACY_ID}.jsonl`);
  writeFileSync(paginatedPath, PAGINATED);
  writeFileSync(legacyPath, LEGACY);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const paginated = (cut: Partial<ForkRequest> = {}): ForkRequest => ({
  sourceThreadId: PAGINATED_ID,
  source: { store: 'files', path: paginatedPath },
  lastTurnId: null,
  beforeTurnId: null,
  sourceCwd: true,
  ...cut,
});
/** What a fork of `request`'s source file starts with. */
const startOf = (request: ForkRequest) => forkStart(request, NOW, fileForkSource(request));
const legacy = (cut: Partial<ForkRequest> = {}): ForkRequest => ({ ...paginated(cut), sourceThreadId: LEGACY_ID, source: { store: 'files', path: legacyPath } });

describe('a paginated source', () => {
  test('forked whole is based on all it has written', () => {
    expect(startOf(paginated())).toEqual({
      historyMode: 'paginated',
      firstOrdinal: 23,
      base: { threadId: PAGINATED_ID, endOrdinalExclusive: 23, endByteOffset: Buffer.byteLength(PAGINATED) },
      copied: [],
      kept: PAGINATED.trim().split('\n'),
      cwd: '/home/me/.codex',
    });
  });

  test('a source whose rollout a revert started is based on that file, named by its own id', () => {
    const fileId = '01a24450-0000-7000-8000-0000000000f1';
    const revertedPath = join(home, 'sessions', '2026', '12', '02', `rollout-2026-12-02T12-00-00-${PAGINATED_ID}_${fileId}.jsonl`);
    writeFileSync(revertedPath, PAGINATED);
    const request = paginated({ source: { store: 'files', path: revertedPath } });
    expect(startOf(request).base).toEqual({ threadId: fileId, endOrdinalExclusive: 23, endByteOffset: Buffer.byteLength(PAGINATED) });
    expect(startOf({ ...request, lastTurnId: TURNS.paginated[0]! }).base).toEqual({ threadId: fileId, endOrdinalExclusive: 14, endByteOffset: offsetOfLine(PAGINATED, 14) });
  });

  test('forked up to its first turn, or before its second, ends at the second turn\'s start', () => {
    const base = { threadId: PAGINATED_ID, endOrdinalExclusive: 14, endByteOffset: offsetOfLine(PAGINATED, 14) };
    expect(startOf(paginated({ lastTurnId: TURNS.paginated[0]! })).base).toEqual(base);
    expect(startOf(paginated({ beforeTurnId: TURNS.paginated[1]! })).base).toEqual(base);
    expect(startOf(paginated({ lastTurnId: TURNS.paginated[1]! })).base).toEqual({ ...base, endOrdinalExclusive: 23, endByteOffset: Buffer.byteLength(PAGINATED) });
  });

  test('is refused a turn it does not have, in the reference\'s words', () => {
    expect(() => startOf(paginated({ lastTurnId: 'nope' }))).toThrow(expect.objectContaining({ name: 'ForkRefusal', message: 'turn not found: nope' }));
    expect(() => startOf(paginated({ beforeTurnId: 'x' }))).toThrow(expect.objectContaining({ name: 'ForkRefusal', message: 'turn not found: x' }));
    expect(() => startOf(paginated({ source: { store: 'files', path: join(home, 'gone.jsonl') } }))).toThrow(expect.objectContaining({ name: 'ForkRefusal', message: `no rollout found for thread id ${PAGINATED_ID}` }));
  });

  test('that is itself a fork, cut before its own turns, is based on its source\'s lines', async () => {
    const forkPath = join(home, 'sessions', '2026', '12', '02', `rollout-2026-12-02T12-00-00-${FORK_ID}.jsonl`);
    await writeForkRollout(forkPath, paginated({ lastTurnId: TURNS.paginated[0]! }), meta(), Date.parse(NOW));
    const request: ForkRequest = { ...paginated(), sourceThreadId: FORK_ID, source: { store: 'files', path: forkPath } };
    expect(startOf({ ...request, beforeTurnId: TURNS.paginated[0]! }).base).toEqual({ threadId: PAGINATED_ID, endOrdinalExclusive: 1, endByteOffset: offsetOfLine(PAGINATED, 1) });
    expect(startOf(request).base).toEqual({ threadId: FORK_ID, endOrdinalExclusive: 15, endByteOffset: Buffer.byteLength(readFileSync(forkPath)) });
  });
});

describe('a legacy source', () => {
  test('forked up to its first turn copies the lines before the second, at the time of the fork', () => {
    const kept = LEGACY.trim().split('\n').slice(0, 14);
    const copied = kept.map((line) => line.replace(/^\{"timestamp":"[^"]*"/, `{"timestamp":"${NOW}"`));
    expect(startOf(legacy({ lastTurnId: TURNS.legacy[0]! }))).toEqual({ historyMode: 'legacy', firstOrdinal: null, base: null, copied, kept, cwd: '/home/me/.codex' });
    expect(startOf(legacy()).copied).toHaveLength(23);
  });

  test('is refused a turn it does not have, in the reference\'s words', () => {
    expect(() => startOf(legacy({ lastTurnId: 'nope' }))).toThrow(expect.objectContaining({ name: 'ForkRefusal', message: "lastTurnId 'nope' was not found in the source thread" }));
  });
});

function meta() {
  return { threadId: FORK_ID, createdAtMs: Date.parse(NOW), cwd: '/elsewhere', originator: 'o', cliVersion: '0.1.0', source: 'vscode' as const, modelProvider: 'p', model: 'm', baseInstructions: null };
}

describe('writeForkRollout', () => {
  test('writes the fork\'s session_meta in the source\'s working directory, and never over a file', async () => {
    const path = join(home, 'sessions', '2026', '12', '05', `rollout-2026-12-05T03-00-00-${FORK_ID}.jsonl`);
    await writeForkRollout(path, paginated({ lastTurnId: TURNS.paginated[0]! }), meta(), Date.parse(NOW));
    expect(readFileSync(path, 'utf8').split('\n').map((line) => (line === '' ? line : JSON.parse(line)))).toEqual([
      {
        timestamp: NOW,
        ordinal: 14,
        type: 'session_meta',
        payload: {
          session_id: FORK_ID,
          id: FORK_ID,
          forked_from_id: PAGINATED_ID,
          forked_from_ordinal_exclusive: 14,
          timestamp: NOW,
          cwd: '/home/me/.codex',
          runtime_workspace_roots: ['/home/me/.codex'],
          originator: 'o',
          cli_version: '0.1.0',
          source: 'vscode',
          model_provider: 'p',
          base_instructions: null,
          history_mode: 'paginated',
          history_base: { thread_id: PAGINATED_ID, end_ordinal_exclusive: 14, end_byte_offset: offsetOfLine(PAGINATED, 14) },
        },
      },
      '',
    ]);
    await expect(writeForkRollout(path, paginated(), meta(), Date.parse(NOW))).rejects.toThrow('EEXIST');
  });
});

describe('ephemeralForkText', () => {
  test('is the fork\'s session_meta, then the lines it keeps; a paginated one only without turns in the answer', () => {
    const [first, ...rest] = ephemeralForkText(legacy({ lastTurnId: TURNS.legacy[0]! }), meta(), Date.parse(NOW), true).split('\n');
    expect([JSON.parse(first!).payload.forked_from_id, JSON.parse(first!).payload.history_base, rest]).toEqual([LEGACY_ID, undefined, LEGACY.trim().split('\n').slice(0, 14)]);
    expect(() => ephemeralForkText(paginated(), meta(), Date.parse(NOW), true)).toThrow(expect.objectContaining({ name: 'ForkRefusal', message: 'ephemeral paginated thread/fork requires `excludeTurns: true`' }));
    expect(ephemeralForkText(paginated(), meta(), Date.parse(NOW), false).split('\n').slice(1)).toEqual(PAGINATED.trim().split('\n'));
  });
});

/** A record's line without what a session_meta says of a base file, which the store's rows never name. */
const withoutBase = (line: string): string => {
  const record = JSON.parse(line) as { payload: Record<string, unknown> };
  delete record.payload.history_base;
  delete record.payload.forked_from_ordinal_exclusive;
  return JSON.stringify(record);
};

describe('storedForkLines', () => {
  test("are what the files store's reader sees of the fork's file, for every cut of either source", async () => {
    const cases: Array<[string, ForkRequest, string]> = [
      ['paginated whole', paginated(), PAGINATED],
      ['paginated up to its first turn', paginated({ lastTurnId: TURNS.paginated[0]! }), PAGINATED],
      ['paginated before its first turn', paginated({ beforeTurnId: TURNS.paginated[0]! }), PAGINATED],
      ['legacy whole', legacy(), LEGACY],
      ['legacy up to its first turn', legacy({ lastTurnId: TURNS.legacy[0]! }), LEGACY],
    ];
    for (const [name, request, sourceText] of cases) {
      const path = join(home, 'sessions', '2026', '12', '05', `rollout-2026-12-05T03-00-00-${FORK_ID}.jsonl`);
      await writeForkRollout(path, request, meta(), Date.parse(NOW));
      const read = withHistoryBase(path, readFileSync(path, 'utf8')).trim().split('\n');
      const rows = storedForkLines({ ...request, source: { store: 'postgres', connection: { url: null } } }, sourceText, meta(), Date.parse(NOW));
      expect(rows.map((line, i) => (i === 0 ? withoutBase(line) : line)), name).toEqual(read.map((line, i) => (i === 0 ? withoutBase(line) : line)));
      rmSync(path);
    }
  });

  test('refuse a source the store holds none of, in the reference\'s words', () => {
    expect(() => storedForkLines(paginated(), null, meta(), Date.parse(NOW))).toThrow(expect.objectContaining({ name: 'ForkRefusal', message: `no rollout found for thread id ${PAGINATED_ID}` }));
  });
});
