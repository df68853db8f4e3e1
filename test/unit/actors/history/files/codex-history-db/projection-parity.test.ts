// thread-host's projection of a rollout it wrote, against the rows codex-cli 0.171.0 wrote for
// the same rollout (test/fixtures/codex-history-db): every column of every row, and the
// checkpoint, whether the tail arrives at once, line by line, or in the batches a turn writes,
// and whether a flush or the in-turn delay projects it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { HistoryDatabase } from '../../../../../../src/actors/history/files/codex-history-db/history-database.js';
import { projectTail } from '../../../../../../src/actors/history/files/codex-history-db/rollout-tail.js';
import { IN_TURN_DELAY_MS, ThreadHistoryProjector } from '../../../../../../src/actors/history/files/codex-history-db/thread-history-projector.js';
import { createReferenceHistoryDb, fixtureBytes, fixtureText, threadRows } from '../../../../../helpers/reference-history-db.js';

const ROLLOUT = fixtureBytes('thread-host-turns.jsonl');
const REFERENCE = JSON.parse(fixtureText('thread-host-turns.rows.json')) as { threadId: string; turns: unknown[]; items: unknown[]; checkpoint: unknown };
const THREAD = REFERENCE.threadId;

let dir: string;
let dbPath: string;
let database: HistoryDatabase;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'history-db-'));
  dbPath = join(dir, 'thread_history_1.sqlite');
  createReferenceHistoryDb(dbPath);
  database = new HistoryDatabase(dbPath, 250);
});
afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Line boundaries of the fixture rollout, as byte offsets (0 first, the file's length last). */
function lineEnds(): number[] {
  const ends = [0];
  for (let i = ROLLOUT.indexOf(0x0a); i !== -1; i = ROLLOUT.indexOf(0x0a, i + 1)) ends.push(i + 1);
  return ends;
}

/** Projects the rollout in pieces ending at `cuts` (byte offsets), each in its own transaction. */
function projectInPieces(cuts: number[]): void {
  let from = { offset: 0, ordinal: 0 };
  for (const end of cuts) {
    const tail = projectTail(ROLLOUT.subarray(from.offset, end), from);
    if (tail.kind !== 'tail') throw new Error(tail.reason);
    expect(database.apply(THREAD, from, tail.lines, tail.next)).toEqual({ kind: 'applied' });
    from = tail.next;
  }
}

const expected = { turns: REFERENCE.turns, items: REFERENCE.items, checkpoint: REFERENCE.checkpoint };

describe('the projection of a rollout thread-host wrote', () => {
  test('in one transaction is the reference\'s rows', () => {
    projectInPieces([ROLLOUT.length]);
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });

  test('one line per transaction is the same rows', () => {
    projectInPieces(lineEnds().slice(1));
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });

  test('a piece ending mid-line leaves that line for the next one', () => {
    const ends = lineEnds();
    projectInPieces([ends[5]! + 17, ends[20]! - 3, ROLLOUT.length]);
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });

  test('through the actor\'s projector, batch by batch from memory, is the same rows', async () => {
    const projector = projectorFor(join(dir, 'absent.jsonl'));
    const ends = lineEnds();
    // The batches a turn writes are a few lines each; one line each is the finest split.
    for (let i = 1; i < ends.length; i += 1) {
      projector.landed(ends[i - 1]!, ROLLOUT.subarray(ends[i - 1]!, ends[i]!));
      await projector.flush();
    }
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });

  test('the first projection of a thread reads the rollout from byte 0; later ones use what landed', async () => {
    const path = join(dir, 'rollout.jsonl');
    writeFileSync(path, ROLLOUT);
    const projector = projectorFor(path);
    const ends = lineEnds();
    const last = ends[ends.length - 2]!;
    projector.landed(last, ROLLOUT.subarray(last));
    await projector.flush();
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });

  test('a thread whose rows were deleted after a projection is caught up from the file by the next', async () => {
    const path = join(dir, 'rollout.jsonl');
    writeFileSync(path, ROLLOUT);
    const projector = projectorFor(path);
    const cut = lineEnds()[20]!;
    projector.landed(0, ROLLOUT.subarray(0, cut));
    await projector.flush();
    const other = new Database(dbPath);
    for (const table of ['thread_turns', 'thread_items', 'thread_history_projection_state']) other.prepare(`DELETE FROM ${table} WHERE thread_id = ?`).run(THREAD);
    other.close();
    projector.landed(cut, ROLLOUT.subarray(cut));
    await projector.flush();
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });

  test('a checkpoint behind what landed is caught up from the file', async () => {
    const path = join(dir, 'rollout.jsonl');
    writeFileSync(path, ROLLOUT);
    const ends = lineEnds();
    projectInPieces([ends[10]!]);
    const projector = projectorFor(path);
    projector.landed(ends[30]!, ROLLOUT.subarray(ends[30]!));
    await projector.flush();
    expect(threadRows(dbPath, THREAD)).toEqual(expected);
  });
});

describe('lines that land during a turn', () => {
  test('are left to the flush at first, then projected after the in-turn delay without one', async () => {
    const projector = projectorFor(join(dir, 'absent.jsonl'));
    const ends = lineEnds();
    // The fixture's first turn up to its agent message: an in-progress turn.
    const cut = ends[6]!;
    projector.landed(0, ROLLOUT.subarray(0, cut));
    await new Promise((resolve) => setImmediate(resolve));
    expect(threadRows(dbPath, THREAD)).toEqual({ turns: [], items: [], checkpoint: null });
    await new Promise((resolve) => setTimeout(resolve, IN_TURN_DELAY_MS + 50));
    const inProgress = threadRows(dbPath, THREAD);
    // What one transaction of the same lines writes into a fresh database.
    database.close();
    rmSync(dbPath);
    createReferenceHistoryDb(dbPath);
    database = new HistoryDatabase(dbPath, 250);
    projectInPieces([cut]);
    expect(inProgress).toEqual(threadRows(dbPath, THREAD));
    expect((inProgress.turns as Array<{ status: string }>).map((turn) => turn.status)).toEqual(['inProgress']);
  });
});

function projectorFor(rolloutPath: string): ThreadHistoryProjector {
  return new ThreadHistoryProjector({ threadId: THREAD, rolloutPath, database, holdsWriterLock: () => true, log: () => undefined });
}
