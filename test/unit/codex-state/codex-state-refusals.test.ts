// When the mirror leaves the reference's state and queue databases alone: a database that does
// not exist (never created), one not in WAL mode, one whose migrations are not codex 0.171.0's
// (an extra or a changed one), another connection holding the write lock past the deadline
// (waited for without blocking the worker); and the parts of a change it has no exact row for:
// the name of a thread the reference never indexed, queued input whose row it makes from more
// than the request (a local image) or in no fixed order (metadata of several entries).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { CodexStateChange, QueuedSubmission } from '../../../src/common/codex-db/codex-state-changes.js';
import { CodexStateWriter } from '../../../src/codex-state/codex-state-writer.js';
import { createReferenceStateDb, stateRows, type StateDbKind } from '../../helpers/reference-state-db.js';

const THREAD = '01a2449b-b3ea-7292-9fa5-3781a2e78e5b';
const RECEIPT: CodexStateChange = { kind: 'readReceipt', threadId: THREAD, receipt: { firstUnread: null, revision: 'r-1', lastPublishedTurn: 't-1' } };
const submission = (id: string, input: QueuedSubmission['input'], metadata: Record<string, string> | null = null): QueuedSubmission => ({
  id,
  input,
  clientUserMessageId: `client-${id}`,
  responsesapiClientMetadata: metadata,
});
const text = (value: string) => ({ type: 'text' as const, text: value, text_elements: [] });
const NOTHING = { threads: [], thread_read_receipts: [], queued_items: [], queued_thread_revisions: [] };

let dir: string;
let databases: { state: string; queue: string };
let writers: CodexStateWriter[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'codex-state-refusals-'));
  databases = { state: join(dir, 'state_5.sqlite'), queue: join(dir, 'queue_1.sqlite') };
  writers = [];
});
afterEach(() => {
  for (const writer of writers) writer.close();
  rmSync(dir, { recursive: true, force: true });
});

function apply(change: CodexStateChange, deadlineMs = 250) {
  const writer = new CodexStateWriter(deadlineMs);
  writers.push(writer);
  return writer.apply({ kind: 'mirrorCodexState', databases, change });
}

const bothCreated = () => {
  createReferenceStateDb('state', databases.state);
  createReferenceStateDb('queue', databases.queue);
};

describe('a database the mirror does not write into', () => {
  test('one that does not exist is not created', async () => {
    expect(await apply(RECEIPT)).toEqual({ kind: 'mirrored', notices: [{ database: databases.state, threadId: THREAD, reason: 'the database does not exist (the reference creates it)' }] });
    expect(existsSync(databases.state)).toBe(false);
  });

  test.each<[StateDbKind, CodexStateChange]>([
    ['state', RECEIPT],
    ['queue', { kind: 'queue', threadId: THREAD, before: [], after: [submission('a', [text('a')])], nowMs: 5 }],
  ])('a %s database not in WAL mode is left byte for byte as it was', async (kind, change) => {
    bothCreated();
    const db = new Database(databases[kind]);
    db.pragma('journal_mode = DELETE');
    db.close();
    const before = readFileSync(databases[kind]);
    expect(await apply(change)).toEqual({ kind: 'mirrored', notices: [{ database: databases[kind], threadId: THREAD, reason: 'its journal mode is delete, not wal' }] });
    expect(readFileSync(databases[kind]).equals(before)).toBe(true);
  });

  type Edit = (m: Array<{ version: number; description: string; checksum: string }>) => Array<{ version: number; description: string; checksum: string }>;
  const extra = (version: number): Edit => (m) => [...m, { version, description: 'later', checksum: 'AB' }];
  const changed = (version: number): Edit => (m) => m.map((x) => (x.version === version ? { ...x, checksum: 'CD' } : x));
  test.each<[string, StateDbKind, Edit]>([
    ['an extra migration', 'state', extra(65)],
    ['a changed migration', 'state', changed(61)],
    ['an extra migration', 'queue', extra(3)],
    ['a changed migration', 'queue', changed(2)],
  ])('one with %s (%s) is left byte for byte as it was', async (_case, kind, edit) => {
    createReferenceStateDb('state', databases.state, kind === 'state' ? edit : undefined);
    createReferenceStateDb('queue', databases.queue, kind === 'queue' ? edit : undefined);
    const before = readFileSync(databases[kind]);
    const change: CodexStateChange = kind === 'state' ? RECEIPT : { kind: 'queue', threadId: THREAD, before: [], after: [submission('a', [text('a')])], nowMs: 5 };
    const versions = kind === 'state' ? [...Array(64).keys()].map((i) => i + 1).concat(_case === 'an extra migration' ? [65] : []) : [1, 2, ...(_case === 'an extra migration' ? [3] : [])];
    expect(await apply(change)).toEqual({ kind: 'mirrored', notices: [{ database: databases[kind], threadId: THREAD, reason: `its migrations are not codex 0.171.0's (versions ${versions.join(',')})` }] });
    expect(stateRows(databases.state, databases.queue)).toEqual(NOTHING);
    expect(readFileSync(databases[kind]).equals(before)).toBe(true);
  });

  test('one whose write lock another connection holds past the deadline is written nothing, without blocking', async () => {
    bothCreated();
    const holder = new Database(databases.state);
    holder.exec('BEGIN IMMEDIATE');
    try {
      let ticks = 0;
      const ticker = setInterval(() => (ticks += 1), 5);
      const started = performance.now();
      const outcome = await apply(RECEIPT, 100);
      const waited = performance.now() - started;
      clearInterval(ticker);
      expect(outcome).toEqual({ kind: 'mirrored', notices: [{ database: databases.state, threadId: THREAD, reason: 'another connection held its write lock past the deadline; the change was not mirrored' }] });
      // The worker's event loop ran while it waited.
      expect(ticks).toBeGreaterThan(3);
      expect(waited).toBeGreaterThanOrEqual(100);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(stateRows(databases.state, databases.queue)).toEqual(NOTHING);
  });
});

describe('parts of a change with no exact row', () => {
  test('the name of a thread the reference has no row for is not written', async () => {
    bothCreated();
    expect(await apply({ kind: 'name', threadId: THREAD, name: 'n' })).toEqual({
      kind: 'mirrored',
      notices: [{ database: databases.state, threadId: THREAD, reason: 'the reference has no row for the thread yet: its name is not mirrored until it indexes the thread and the thread is renamed again' }],
    });
    expect(stateRows(databases.state, databases.queue)).toEqual(NOTHING);
  });

  test.each<[string, QueuedSubmission, string]>([
    ['a local image', submission('b', [{ type: 'localImage', path: '/tmp/p.png' }]), 'queued local image (the reference stores the bytes of the file it reads then) is not mirrored'],
    ['two metadata entries', submission('b', [text('b')], { x: '1', y: '2' }), 'queued input with 2 metadata entries (the reference stores them in no fixed order) is not mirrored'],
  ])('queued input with %s is not written; the rest of the queue is', async (_case, unknown, reason) => {
    bothCreated();
    const a = submission('a', [text('a')]);
    expect(await apply({ kind: 'queue', threadId: THREAD, before: [], after: [a], nowMs: 5 })).toEqual({ kind: 'mirrored', notices: [], queuedRows: ['a'] });
    // Only `a` has a row: the unwritten input runs in thread-host whatever the reference does.
    expect(await apply({ kind: 'queue', threadId: THREAD, before: [a], after: [a, unknown], nowMs: 6 })).toEqual({ kind: 'mirrored', notices: [{ database: databases.queue, threadId: THREAD, reason }], queuedRows: ['a'] });
    expect(stateRows(databases.state, databases.queue).queued_items).toEqual([
      { id: 'a', thread_id: THREAD, payload_json: '{"UserInput":{"content":[{"type":"text","text":"a","text_elements":[]}],"client_id":"client-a"}}', queue_order: 0, created_at_ms: 5, updated_at_ms: 5 },
    ]);
  });

  test('rows the reference queued itself stay when thread-host changes its own', async () => {
    bothCreated();
    const db = new Database(databases.queue);
    db.prepare('INSERT INTO queued_items VALUES (?, ?, ?, 0, 1, 1)').run('theirs', THREAD, '{"UserInput":{"content":[],"client_id":"c"}}');
    db.close();
    const a = submission('a', [text('a')]);
    await apply({ kind: 'queue', threadId: THREAD, before: [], after: [a], nowMs: 5 });
    await apply({ kind: 'queue', threadId: THREAD, before: [a], after: [], nowMs: 6 });
    expect(stateRows(databases.state, databases.queue).queued_items.map((row) => row.id)).toEqual(['theirs']);
  });
});
