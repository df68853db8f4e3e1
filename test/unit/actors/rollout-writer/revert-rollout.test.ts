// The first line of the file a revert starts, checked against the files codex 0.171.0 wrote when
// it reverted a thread twice (test/fixtures/rollouts/reference-reverted): the base a revert
// names is the one the reference named for the same cut, through the chain of earlier files.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { storedRevertLines } from '../../../../src/actors/rollout-writer/revert-rollout.js';
import { writeRevertRollout } from '../../../../src/actors/history/files/revert-file.js';
import { withHistoryBase } from '../../../../src/common/rollout/history-base.js';
import type { SessionMetaInput } from '../../../../src/actors/rollout-writer/rollout-lines.js';

const FIXTURE = fileURLToPath(new URL('../../../fixtures/rollouts/reference-reverted/sessions/', import.meta.url));
const THREAD = '01a2441f-9162-7e20-bb69-67ca7806dcca';
const FIRST = `rollout-2026-12-05T02-54-09-${THREAD}.jsonl`;
const SECOND = `rollout-2026-12-05T02-54-10-${THREAD}_01a2441f-94ea-7271-982f-5c36ad19b48c.jsonl`;
const NEWEST = `rollout-2026-12-05T02-54-10-${THREAD}_01a2441f-977b-7910-9a75-063680776bf1.jsonl`;
const TURN = { first: '01a2441f-9321-7482-9a75-32cb5938a698', second: '01a2441f-93ca-7bf1-88c5-d8f8c5055f9d', secondFilesOwn: '01a2441f-969b-7911-98fa-4c09d526d709', newestOwn: '01a2441f-97b5-7991-8528-9d2ab4c17ad9' };
const NOW_MS = Date.parse('2026-12-05T03:00:00.000Z');
const META: SessionMetaInput = {
  threadId: THREAD,
  createdAtMs: Date.parse('2026-12-05T02:54:09.000Z'),
  cwd: '/work',
  originator: 'thread-host',
  cliVersion: '0.1.0',
  source: 'vscode',
  modelProvider: 'mock',
  model: 'mock-model',
  baseInstructions: null,
};

let home: string;
let dir: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-revert-rollout-'));
  cpSync(FIXTURE, join(home, 'sessions'), { recursive: true });
  dir = join(home, 'sessions', '2026', '12', '05');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const NEW_PATH = (): string => join(dir, `rollout-2026-12-05T03-00-00-${THREAD}_01a24420-0000-7000-8000-000000000000.jsonl`);

/** Reverts the thread living in `previous` before `beforeTurnId`; the new file's one line, parsed. */
async function revert(previous: string, beforeTurnId: string): Promise<Record<string, unknown>> {
  const path = NEW_PATH();
  await writeRevertRollout(path, { previousPath: join(dir, previous), fileName: basename(path), beforeTurnId, atMs: NOW_MS }, META);
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n') && text.indexOf('\n') === text.length - 1).toBe(true);
  return JSON.parse(text) as Record<string, unknown>;
}

const baseOf = (record: Record<string, unknown>): unknown => (record.payload as { history_base: unknown }).history_base;
const historyBaseOf = (first: string): unknown => (JSON.parse(readFileSync(join(dir, first), 'utf8').split('\n')[0]!) as { payload: { history_base: unknown } }).payload.history_base;

/** Where the line of `ordinal` starts in `name`, in bytes. */
function lineStart(name: string, ordinal: number): number {
  let offset = 0;
  for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
    if ((JSON.parse(line) as { ordinal: number }).ordinal === ordinal) return offset;
    offset += Buffer.byteLength(line) + 1;
  }
  throw new Error(`no ordinal ${ordinal}`);
}

test('a revert names the base the reference named for the same cut', async () => {
  // The reference reverted the first file before its second turn, and the second file before its own turn.
  expect(baseOf(await revert(FIRST, TURN.second))).toEqual(historyBaseOf(SECOND));
  rmSync(NEW_PATH());
  expect(baseOf(await revert(SECOND, TURN.secondFilesOwn))).toEqual(historyBaseOf(NEWEST));
});

test("the new file's session_meta continues the kept history at the reverted turn's ordinal", async () => {
  expect(await revert(NEWEST, TURN.newestOwn)).toEqual({
    timestamp: '2026-12-05T03:00:00.000Z',
    ordinal: 18,
    type: 'session_meta',
    payload: {
      session_id: THREAD,
      id: THREAD,
      timestamp: '2026-12-05T03:00:00.000Z',
      cwd: '/work',
      runtime_workspace_roots: ['/work'],
      originator: 'thread-host',
      cli_version: '0.1.0',
      source: 'vscode',
      model_provider: 'mock',
      base_instructions: null,
      history_mode: 'paginated',
      history_base: { thread_id: '01a2441f-977b-7910-9a75-063680776bf1', end_ordinal_exclusive: 18, end_byte_offset: lineStart(NEWEST, 18) },
    },
  });
});

test('a revert before the first turn keeps nothing: ordinal 0 and no base', async () => {
  const first = await revert(NEWEST, TURN.first);
  expect([first.ordinal, (first.payload as Record<string, unknown>).history_base]).toEqual([0, undefined]);
});

test('a turn the history does not hold (an earlier revert dropped it) is not found, and nothing is written', async () => {
  await expect(revert(NEWEST, TURN.second)).rejects.toThrow(expect.objectContaining({ name: 'ForkRefusal', message: `turn not found: ${TURN.second}` }));
  await expect(revert(NEWEST, 'nope')).rejects.toThrow(expect.objectContaining({ name: 'ForkRefusal', message: 'turn not found: nope' }));
  expect(existsSync(NEW_PATH())).toBe(false);
});

/** A record's line without the session_meta's history base, which the store's rows never name. */
const withoutBase = (line: string): string => {
  const record = JSON.parse(line) as { payload: Record<string, unknown> };
  delete record.payload.history_base;
  return JSON.stringify(record);
};

test("the store's rows after a revert are what the files store's reader sees of the new file", async () => {
  for (const [previous, turnId] of [
    [NEWEST, TURN.newestOwn],
    [NEWEST, TURN.first],
    [SECOND, TURN.secondFilesOwn],
  ] as const) {
    const previousText = withHistoryBase(join(dir, previous), readFileSync(join(dir, previous), 'utf8'));
    await revert(previous, turnId);
    const read = withHistoryBase(NEW_PATH(), readFileSync(NEW_PATH(), 'utf8')).trim().split('\n');
    const rows = storedRevertLines(previousText, { previousPath: null, fileName: basename(NEW_PATH()), beforeTurnId: turnId, atMs: NOW_MS }, META);
    expect(rows.map((line, i) => (i === 0 ? withoutBase(line) : line))).toEqual(read.map((line, i) => (i === 0 ? withoutBase(line) : line)));
    rmSync(NEW_PATH());
  }
});
