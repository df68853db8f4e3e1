// Which queued rows thread-host's mirror wrote are still in the reference's queue database
// (a queue_1.sqlite of codex 0.171.0's schema, test/fixtures/codex-state-db): a queue change
// reports the submissions that have a row once it commits, and a look-up answers which still
// do after the reference ran (deleted) some, or why the database cannot tell.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { QueuedSubmission } from '../../../src/common/codex-db/codex-state-changes.js';
import { CodexStateWriter } from '../../../src/codex-state/codex-state-writer.js';
import { createReferenceStateDb } from '../../helpers/reference-state-db.js';
import { queuedSubmission } from '../../helpers/queued-submission.js';

const THREAD = '01a2449b-b3ea-7292-9fa5-3781a2e78e5b';
const OTHER = '01a2449b-b3ea-7292-9fa5-3781a2e78e5c';
const submission = queuedSubmission;

let dir: string;
let databases: { state: string; queue: string };
let writer: CodexStateWriter;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'codex-queue-rows-'));
  databases = { state: join(dir, 'state_5.sqlite'), queue: join(dir, 'queue_1.sqlite') };
  writer = new CodexStateWriter(100);
});
afterEach(() => {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const queueChange = (threadId: string, before: QueuedSubmission[], after: QueuedSubmission[]) =>
  writer.apply({ kind: 'mirrorCodexState', databases, change: { kind: 'queue', threadId, before, after, nowMs: 5 } });
const rowsOf = (threadId: string, ids: string[]) => writer.queuedRows({ kind: 'codexQueueRows', database: databases.queue, threadId, ids });
/** What the reference does as it starts a queued row's input: it deletes the row. */
const referenceRuns = (id: string) => {
  const db = new Database(databases.queue);
  db.prepare('DELETE FROM queued_items WHERE id = ?').run(id);
  db.close();
};

describe('a queue change', () => {
  test('reports the submissions with a row once it commits, not one it has no row for', async () => {
    createReferenceStateDb('queue', databases.queue);
    const [a, b] = [submission('a'), submission('b')];
    const image = submission('image', [{ type: 'localImage', path: '/tmp/p.png' }]);
    expect((await queueChange(THREAD, [], [a])).queuedRows).toEqual(['a']);
    expect((await queueChange(THREAD, [a], [a, image, b])).queuedRows).toEqual(['a', 'b']);
    referenceRuns('a');
    // A later change does not write the row again: the reference ran it.
    expect((await queueChange(THREAD, [a, image, b], [b, image, a])).queuedRows).toEqual(['b']);
  });

  test('reports none when the database does not exist', async () => {
    expect(await queueChange(THREAD, [], [submission('a')])).toEqual({
      kind: 'mirrored',
      notices: [{ database: databases.queue, threadId: THREAD, reason: 'the database does not exist (the reference creates it)' }],
    });
  });
});

describe('a look-up of queued rows', () => {
  test('answers those still there: one the reference ran is not, nor another thread\'s', async () => {
    createReferenceStateDb('queue', databases.queue);
    const [a, b, c] = [submission('a'), submission('b'), submission('c')];
    await queueChange(THREAD, [], [a, b]);
    await queueChange(OTHER, [], [c]);
    referenceRuns('a');
    expect(await rowsOf(THREAD, ['a', 'b', 'c'])).toEqual({ kind: 'codexQueueRows', present: ['b'] });
  });

  test('is not stopped by another connection holding the write lock (it reads a snapshot)', async () => {
    createReferenceStateDb('queue', databases.queue);
    await queueChange(THREAD, [], [submission('a')]);
    const holder = new Database(databases.queue);
    holder.exec('BEGIN IMMEDIATE');
    holder.prepare('DELETE FROM queued_items').run();
    try {
      expect(await rowsOf(THREAD, ['a'])).toEqual({ kind: 'codexQueueRows', present: ['a'] });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  test('cannot tell without the database', async () => {
    expect(await rowsOf(THREAD, ['a'])).toEqual({ kind: 'codexQueueUnknown', reason: 'the database does not exist (the reference creates it)' });
  });

  test('cannot tell once another release migrated the database, though the rows are still there', async () => {
    createReferenceStateDb('queue', databases.queue);
    await queueChange(THREAD, [], [submission('a')]);
    const db = new Database(databases.queue);
    db.prepare("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (3, 'later', 1, unhex('AB'), 1)").run();
    db.close();
    expect(await rowsOf(THREAD, ['a'])).toEqual({ kind: 'codexQueueUnknown', reason: "its migrations are not codex 0.171.0's (versions 1,2,3)" });
  });
});
