// ThreadReadStates: turn ends and marks move the state as the reference moves it
// (reference-answers/thread-read-state.jsonl), a stale revision changes nothing, the file is
// read back at start (torn and foreign lines skipped), a failed append undoes the mark, a
// deleted thread is forgotten, and a revert that drops the first unread turn leaves it read.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ThreadReadStates } from '../../../../src/main/store/files/thread-read-states.js';
import { threadIdOf, type ThreadId } from '../../../../src/common/thread-id.js';

const A = '01a24398-0000-7000-8000-00000000000a' as ThreadId;
const B = '01a24398-0000-7000-8000-00000000000b' as ThreadId;
const quiet = () => undefined;
let home: string;
let revisions: number;
const numbered = () => `r${++revisions}`;
const store = () => new ThreadReadStates(home, quiet, numbered);
const file = () => join(home, 'thread-host-read-state.jsonl');

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'thread-host-read-state-unit-'));
  revisions = 0;
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

test('a thread with nothing recorded is read at the initial revision', () => {
  expect(store().get(threadIdOf(A.toUpperCase()))).toEqual({ firstUnread: null, revision: `initial:${A}` });
});

test('the first turn to end stays the first unread until a read; every change is a new revision', async () => {
  const states = store();
  expect(states.turnEnded(A, 't1', 0)).toEqual({ firstUnread: { type: 'turn', turnId: 't1' }, revision: 'r1' });
  expect(states.turnEnded(A, 't2', 0)).toEqual({ firstUnread: { type: 'turn', turnId: 't1' }, revision: 'r2' });
  expect(await states.mark(A, 'read', 'r1', 0)).toEqual({ changed: false, state: { firstUnread: { type: 'turn', turnId: 't1' }, revision: 'r2' } });
  expect(await states.mark(A, 'read', 'r2', 0)).toEqual({ changed: true, state: { firstUnread: null, revision: 'r3' } });
  expect(await states.mark(A, 'read', 'r3', 0)).toEqual({ changed: true, state: { firstUnread: null, revision: 'r4' } });
  expect(await states.mark(A, 'unread', 'r4', 0)).toEqual({ changed: true, state: { firstUnread: { type: 'threadStart' }, revision: 'r5' } });
  expect(states.turnEnded(A, 't3', 0)).toEqual({ firstUnread: { type: 'threadStart' }, revision: 'r6' });
  expect(await states.mark(B, 'unread', `initial:${B}`, 0)).toEqual({ changed: true, state: { firstUnread: { type: 'threadStart' }, revision: 'r7' } });
});

test('of two marks expecting one revision only the first changes the state', async () => {
  const states = store();
  states.turnEnded(A, 't1', 0);
  const [first, second] = await Promise.all([states.mark(A, 'read', 'r1', 0), states.mark(A, 'unread', 'r1', 0)]);
  expect([first, second]).toEqual([
    { changed: true, state: { firstUnread: null, revision: 'r2' } },
    { changed: false, state: { firstUnread: null, revision: 'r2' } },
  ]);
});

test('the file is read back at start, in order, last line of an id winning, torn and foreign lines skipped', async () => {
  const states = store();
  states.turnEnded(A, 't1', Date.parse('2026-12-05T00:00:00Z'));
  states.turnEnded(B, 'u1', 0);
  await states.mark(A, 'read', 'r1', Date.parse('2026-12-05T00:00:01Z'));
  await states.settled();
  const lines = readFileSync(file(), 'utf8').split('\n');
  expect([lines[0], lines[2]]).toEqual([
    `{"id":"${A}","first_unread":{"type":"turn","turn_id":"t1"},"revision":"r1","last_published_turn":"t1","updated_at":"2026-12-05T00:00:00.000Z"}`,
    `{"id":"${A}","first_unread":null,"revision":"r3","last_published_turn":"t1","updated_at":"2026-12-05T00:00:01.000Z"}`,
  ]);
  writeFileSync(file(), `${readFileSync(file(), 'utf8')}{"name":"other"}\n{"id":"${A}","first_unread":{"type":"weird"},"revision":"x"}\n{"id":"${B}","first_un`);
  const again = store();
  expect([again.get(A), again.get(B)]).toEqual([{ firstUnread: null, revision: 'r3' }, { firstUnread: { type: 'turn', turnId: 'u1' }, revision: 'r2' }]);
});

test('a mark whose line cannot be written is undone and rejected', async () => {
  const states = store();
  states.turnEnded(A, 't1', 0);
  await states.settled();
  rmSync(file());
  mkdirSync(file()); // appending to a directory fails
  await expect(states.mark(A, 'read', 'r1', 0)).rejects.toThrow();
  expect(states.get(A)).toEqual({ firstUnread: { type: 'turn', turnId: 't1' }, revision: 'r1' });
});

test('a deleted thread is forgotten, in memory and after a restart', async () => {
  const states = store();
  states.turnEnded(A, 't1', 0);
  states.turnEnded(B, 'u1', 0);
  await states.forget(A, 0);
  expect([states.get(A), store().get(A), store().get(B)]).toEqual([
    { firstUnread: null, revision: `initial:${A}` },
    { firstUnread: null, revision: `initial:${A}` },
    { firstUnread: { type: 'turn', turnId: 'u1' }, revision: 'r2' },
  ]);
});

test('a revert that drops the first unread turn leaves the thread read, after a restart too; any other changes nothing', async () => {
  const states = store();
  states.turnEnded(A, 't1', 0);
  states.turnEnded(A, 't2', 0);
  expect(states.reverted(A, new Set(['t1']), 0)).toBe(null);
  expect(states.reverted(A, new Set(), 0)).toEqual({ firstUnread: null, revision: 'r3' });
  expect(states.reverted(A, new Set(), 0)).toBe(null);
  await states.settled();
  expect([states.get(A), store().get(A)]).toEqual([{ firstUnread: null, revision: 'r3' }, { firstUnread: null, revision: 'r3' }]);
  await states.mark(B, 'unread', `initial:${B}`, 0);
  expect(states.reverted(B, new Set(), 0)).toBe(null);
});
