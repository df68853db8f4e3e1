// When thread-host leaves the reference's history database alone: a database that does not
// exist (never created), one not in WAL mode, one whose migrations are not codex 0.171.0's
// (an extra or a changed one: another release's schema), a tail holding a record thread-host
// does not write, and another connection holding the write lock past the deadline (waited for
// without blocking the worker).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { HistoryDatabase } from '../../../../../../src/actors/history/files/codex-history-db/history-database.js';
import { projectTail, type Checkpoint } from '../../../../../../src/actors/history/files/codex-history-db/rollout-tail.js';
import { ThreadHistoryProjector } from '../../../../../../src/actors/history/files/codex-history-db/thread-history-projector.js';
import { createReferenceHistoryDb, fixtureBytes, fixtureText, threadRows } from '../../../../../helpers/reference-history-db.js';

const ROLLOUT = fixtureBytes('thread-host-turns.jsonl');
const THREAD = (JSON.parse(fixtureText('thread-host-turns.rows.json')) as { threadId: string }).threadId;
const START: Checkpoint = { offset: 0, ordinal: 0 };
const NOTHING = { turns: [], items: [], checkpoint: null };

let dir: string;
let dbPath: string;
let databases: HistoryDatabase[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'history-db-'));
  dbPath = join(dir, 'thread_history_1.sqlite');
  databases = [];
});
afterEach(() => {
  for (const database of databases) database.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(deadlineMs = 250): HistoryDatabase {
  const database = new HistoryDatabase(dbPath, deadlineMs);
  databases.push(database);
  return database;
}

function wholeTail() {
  const tail = projectTail(ROLLOUT, START);
  if (tail.kind !== 'tail') throw new Error(tail.reason);
  return tail;
}

describe('a database thread-host does not write into', () => {
  test('one that does not exist is not created', () => {
    const database = open();
    const tail = wholeTail();
    expect(database.apply(THREAD, START, tail.lines, tail.next)).toEqual({ kind: 'unusable', reason: 'the database does not exist (the reference creates it)' });
    expect(existsSync(dbPath)).toBe(false);
  });

  test('one that does not exist leaves no projection pending, keeps no bytes, and is said once', async () => {
    const notes: unknown[] = [];
    const projector = new ThreadHistoryProjector({ threadId: THREAD, rolloutPath: join(dir, 'absent'), database: open(), holdsWriterLock: () => true, log: (...args) => notes.push(args) });
    projector.landed(0, ROLLOUT.subarray(0, 8000));
    projector.landed(8000, ROLLOUT.subarray(8000));
    expect(projector.pending).toBe(false);
    await projector.flush();
    expect(existsSync(dbPath)).toBe(false);
    expect(notes).toEqual([['info', 'not projecting into the reference history database', { database: dbPath, threadId: THREAD, reason: 'the database does not exist (the reference creates it)' }]]);
  });

  test('one not in WAL mode is left as it is', () => {
    createReferenceHistoryDb(dbPath);
    const db = new Database(dbPath);
    db.pragma('journal_mode = DELETE');
    db.close();
    const before = readFileSync(dbPath);
    const tail = wholeTail();
    expect(open().apply(THREAD, START, tail.lines, tail.next)).toEqual({ kind: 'unusable', reason: 'its journal mode is delete, not wal' });
    expect(readFileSync(dbPath).equals(before)).toBe(true);
  });

  test.each([
    ['an extra migration', (m: Array<{ version: number; description: string; checksum: string }>) => [...m, { version: 10, description: 'later', checksum: 'AB' }], '1,2,3,4,5,6,7,8,9,10'],
    ['a changed migration', (m: Array<{ version: number; description: string; checksum: string }>) => m.map((x) => (x.version === 4 ? { ...x, checksum: 'CD' } : x)), '1,2,3,4,5,6,7,8,9'],
    ['a missing migration', (m: Array<{ version: number; description: string; checksum: string }>) => m.slice(0, 8), '1,2,3,4,5,6,7,8'],
  ])('one with %s is left as it is', (_case, edit, versions) => {
    createReferenceHistoryDb(dbPath, edit);
    const before = readFileSync(dbPath);
    const tail = wholeTail();
    expect(open().apply(THREAD, START, tail.lines, tail.next)).toEqual({ kind: 'unusable', reason: `its migrations are not codex 0.171.0's (versions ${versions})` });
    expect(threadRows(dbPath, THREAD)).toEqual(NOTHING);
    expect(readFileSync(dbPath).equals(before)).toBe(true);
  });
});

describe('a database migrated further while thread-host has it open', () => {
  test('is written no more', () => {
    createReferenceHistoryDb(dbPath);
    const database = open();
    const first = projectTail(ROLLOUT.subarray(0, 4000), START);
    if (first.kind !== 'tail') throw new Error(first.reason);
    expect(database.apply(THREAD, START, first.lines, first.next)).toEqual({ kind: 'applied' });
    const projected = threadRows(dbPath, THREAD);
    const newer = new Database(dbPath);
    newer.exec("INSERT INTO _sqlx_migrations VALUES (10, 'later', CURRENT_TIMESTAMP, 1, x'AB', 1)");
    newer.close();
    const rest = projectTail(ROLLOUT.subarray(first.next.offset), first.next);
    if (rest.kind !== 'tail') throw new Error(rest.reason);
    expect(database.apply(THREAD, first.next, rest.lines, rest.next)).toEqual({ kind: 'unusable', reason: "its migrations are not codex 0.171.0's (versions 1,2,3,4,5,6,7,8,9,10)" });
    expect(threadRows(dbPath, THREAD)).toEqual(projected);
  });
});

describe('a tail thread-host does not project', () => {
  test('one holding a record thread-host does not write is refused whole', async () => {
    createReferenceHistoryDb(dbPath);
    const worldState = `${JSON.stringify({ timestamp: '2026-12-04T23:57:00.000Z', ordinal: 45, type: 'world_state', payload: { full: true, state: {} } })}\n`;
    const bytes = Buffer.concat([ROLLOUT, Buffer.from(worldState)]);
    expect(projectTail(bytes, START)).toEqual({ kind: 'refused', reason: `a world_state record at byte ${ROLLOUT.length}` });
    const notes: unknown[] = [];
    const projector = new ThreadHistoryProjector({ threadId: THREAD, rolloutPath: join(dir, 'absent'), database: open(), holdsWriterLock: () => true, log: (...args) => notes.push(args) });
    projector.landed(0, bytes);
    await projector.flush();
    expect(threadRows(dbPath, THREAD)).toEqual(NOTHING);
    expect(notes).toEqual([
      ['info', 'not projecting into the reference history database', { database: dbPath, threadId: THREAD, reason: `the rollout from byte 0 holds a world_state record at byte ${ROLLOUT.length}` }],
    ]);
  });
});

describe('another connection holding the write lock', () => {
  test('makes the projection give up after the deadline, and the next one catches up', async () => {
    createReferenceHistoryDb(dbPath);
    const holder = new Database(dbPath);
    holder.exec('BEGIN IMMEDIATE');
    const notes: unknown[] = [];
    const path = join(dir, 'rollout.jsonl');
    writeFileSync(path, ROLLOUT);
    const projector = new ThreadHistoryProjector({ threadId: THREAD, rolloutPath: path, database: open(100), holdsWriterLock: () => true, log: (...args) => notes.push(args) });
    const started = performance.now();
    projector.landed(0, ROLLOUT.subarray(0, 4000));
    await projector.flush();
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(1000);
    // Within the same turn, no further wait.
    projector.landed(4000, ROLLOUT.subarray(4000, 8000));
    const again = performance.now();
    await projector.flush();
    expect(performance.now() - again).toBeLessThan(50);
    holder.exec('ROLLBACK');
    holder.close();
    expect(threadRows(dbPath, THREAD)).toEqual(NOTHING);
    projector.nextTurn();
    projector.landed(8000, ROLLOUT.subarray(8000));
    await projector.flush();
    expect(threadRows(dbPath, THREAD)).toEqual((({ turns, items, checkpoint }) => ({ turns, items, checkpoint }))(JSON.parse(fixtureText('thread-host-turns.rows.json'))));
    expect(notes).toEqual([
      ['info', 'not projecting into the reference history database', { database: dbPath, threadId: THREAD, reason: 'another connection held its write lock past the deadline; the reference catches up at its next resume' }],
    ]);
  });
});

describe('another connection holding the write lock for less than the deadline', () => {
  test('is waited for without blocking the worker, and the projection lands once it is let go', async () => {
    createReferenceHistoryDb(dbPath);
    const holder = new Database(dbPath);
    holder.exec('BEGIN IMMEDIATE');
    const notes: unknown[] = [];
    const projector = new ThreadHistoryProjector({ threadId: THREAD, rolloutPath: join(dir, 'absent'), database: open(2_000), holdsWriterLock: () => true, log: (...args) => notes.push(args) });
    // Only a wait that lets the event loop run can see the lock let go: the lock goes on the
    // third tick of this timer, so a wait that blocked the loop would run into its deadline.
    let ticks = 0;
    const ticking = setInterval(() => {
      ticks += 1;
      if (ticks !== 3) return;
      holder.exec('ROLLBACK');
      holder.close();
    }, 5);
    try {
      projector.landed(0, ROLLOUT);
      await projector.flush();
    } finally {
      clearInterval(ticking);
    }
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect(threadRows(dbPath, THREAD)).toEqual((({ turns, items, checkpoint }) => ({ turns, items, checkpoint }))(JSON.parse(fixtureText('thread-host-turns.rows.json'))));
    expect(notes).toEqual([]);
  });
});
