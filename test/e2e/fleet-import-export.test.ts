// `thread-host fleet import` and `export` (the built CLI) against a real PostgreSQL: the
// reference's rollouts, legacy and paginated, go into the store and come back out byte for
// byte at the reference's paths; importing again stores only what a file gained; a thread
// whose stored lines are not its file's start is reported and left alone.
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { runFleet, type FleetRun } from '../helpers/fleet-cli.js';
import { testDatabase } from '../helpers/test-database.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/rollouts/reference-0.171.0/', import.meta.url));
const COMPLETE = ['two-turns', 'failed-then-completed', 'interrupted'].flatMap((scenario) => [`paginated-${scenario}`, `legacy-${scenario}`]);
const TORN = ['paginated-torn', 'legacy-torn'];

const scratch = mkdtempSync(join(tmpdir(), 'thread-host-fleet-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Placed {
  /** The path under the home, as the reference laid it out. */
  relative: string;
  threadId: string;
  bytes: Buffer;
}

/** The fixtures laid out in a new home at the reference's own paths. */
function homeWith(names: string[]): { home: string; placed: Placed[] } {
  const home = mkdtempSync(join(scratch, 'home-'));
  const placed = names.map((name) => {
    const { origpath } = JSON.parse(readFileSync(join(FIXTURES, `${name}.answers.json`), 'utf8')) as { origpath: string };
    const relative = origpath.replace('$CODEX_HOME/', '');
    const bytes = readFileSync(join(FIXTURES, `${name}.jsonl`));
    mkdirSync(dirname(join(home, relative)), { recursive: true });
    writeFileSync(join(home, relative), bytes);
    return { relative, threadId: /([0-9a-f-]{36})\.jsonl$/.exec(relative)![1]!, bytes };
  });
  return { home, placed };
}

/** Runs the CLI with `db` as the host's configured database. */
const fleet = (db: PostgresConnection, ...args: string[]): FleetRun => runFleet(db, join(scratch, 'host-home'), ...args);

async function storedText(db: PostgresConnection, threadId: string): Promise<string> {
  const client = new pg.Client({ connectionString: db.url! });
  await client.connect();
  try {
    const result = await client.query(`SELECT string_agg(line || E'\\n', '' ORDER BY ordinal) AS text FROM rollout_lines WHERE thread_id = $1`, [threadId]);
    return result.rows[0].text as string;
  } finally {
    await client.end();
  }
}

// The state lines of an import that brought no read state, metadata or queue.
const NO_STATE = '0 read states imported, 0 unchanged, 0 skipped\n0 metadata imported, 0 unchanged, 0 skipped\n0 queues imported, 0 unchanged, 0 skipped (0 inputs queued)\n';

const completeLines = (bytes: Buffer): Buffer => bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);

describe('fleet import and export', () => {
  let db: PostgresConnection;
  let source: { home: string; placed: Placed[] };
  // In the order the import walks a home: newest name first.
  let walked: Placed[];

  beforeAll(async () => {
    db = await testDatabase();
    source = homeWith(COMPLETE);
    walked = [...new Map(source.placed.map((p) => [p.relative, p])).values()].sort((a, b) => (a.relative < b.relative ? 1 : -1));
  });

  test('imports a home, then exports each thread byte for byte at the reference\'s path', () => {
    const imported = fleet(db, 'import', source.home);
    expect(imported).toEqual({
      status: 0,
      stdout:
        walked.map((p) => `imported ${p.threadId}: ${p.bytes.toString('utf8').split('\n').length - 1} lines\n`).join('') +
        `${walked.length} threads imported, 0 grown, 0 unchanged, 0 skipped (${walked.reduce((n, p) => n + p.bytes.toString('utf8').split('\n').length - 1, 0)} lines stored)\n${NO_STATE}`,
      stderr: '',
    });
    const target = mkdtempSync(join(scratch, 'export-'));
    for (const placed of walked) {
      expect(fleet(db, 'export', placed.threadId, '--home', target)).toEqual({ status: 0, stdout: `wrote ${join(target, placed.relative)}\n`, stderr: '' });
      expect(readFileSync(join(target, placed.relative)).equals(placed.bytes)).toBe(true);
      // The update time a listing shows moves with the thread too.
      expect(Math.floor(statSync(join(target, placed.relative)).mtimeMs)).toBe(Math.floor(statSync(join(source.home, placed.relative)).mtimeMs));
    }
    // Again: the file is there with the same bytes, and is left as it is.
    const first = walked[0]!;
    expect(fleet(db, 'export', first.threadId, '--home', target)).toEqual({ status: 0, stdout: `${join(target, first.relative)} already holds this thread\n`, stderr: '' });
  });

  test('importing again stores nothing new; a rollout that grew gets only its new lines', () => {
    expect(fleet(db, 'import', source.home)).toEqual({ status: 0, stdout: `0 threads imported, 0 grown, ${walked.length} unchanged, 0 skipped (0 lines stored)\n${NO_STATE}`, stderr: '' });
    const grown = walked[1]!;
    const extra = '{"timestamp":"2026-12-02T16:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"later ✓"}}\n';
    appendFileSync(join(source.home, grown.relative), extra);
    expect(fleet(db, 'import', source.home)).toEqual({
      status: 0,
      stdout: `appended to ${grown.threadId}: 1 lines\n0 threads imported, 1 grown, ${walked.length - 1} unchanged, 0 skipped (1 lines stored)\n${NO_STATE}`,
      stderr: '',
    });
    const target = mkdtempSync(join(scratch, 'export-'));
    expect(fleet(db, 'export', grown.threadId, '--home', target).status).toBe(0);
    expect(readFileSync(join(target, grown.relative)).equals(Buffer.concat([grown.bytes, Buffer.from(extra)]))).toBe(true);
  });

  test('a thread whose stored lines are not the start of its file is reported and left as it is', async () => {
    const changed = walked[2]!;
    const before = await storedText(db, changed.threadId);
    const path = join(source.home, changed.relative);
    writeFileSync(path, readFileSync(path, 'utf8').replace('"hello"', '"HELLO"'));
    const lines = changed.bytes.toString('utf8').split('\n').length - 1;
    expect(fleet(db, 'import', source.home)).toEqual({
      status: 1,
      stdout: `0 threads imported, 0 grown, ${walked.length - 1} unchanged, 1 skipped (0 lines stored)\n${NO_STATE}`,
      stderr: `skipped ${path}: the store holds ${lines} lines of thread ${changed.threadId} that are not the start of this file; left as they are\n`,
    });
    expect(await storedText(db, changed.threadId)).toBe(before);
    // Nor does an export overwrite the changed file.
    expect(fleet(db, 'export', changed.threadId, '--home', source.home)).toEqual({
      status: 1,
      stdout: '',
      stderr: `thread-host fleet export: ${path} already exists and differs from the stored thread; it was left as it is\n`,
    });
  });

  test('a torn last line is left out, and the export is the complete lines', async () => {
    const torn = homeWith(TORN);
    const tornDb = await testDatabase();
    const imported = fleet(tornDb, 'import', torn.home);
    expect(imported.status).toBe(0);
    const target = mkdtempSync(join(scratch, 'export-'));
    for (const placed of torn.placed) {
      expect(placed.bytes.at(-1)).not.toBe(0x0a);
      expect(fleet(tornDb, 'export', placed.threadId, '--home', target).status).toBe(0);
      expect(readFileSync(join(target, placed.relative)).equals(completeLines(placed.bytes))).toBe(true);
    }
  });

  test('a thread\'s name goes with it, into the store and out into the other home\'s index', async () => {
    const namedDb = await testDatabase();
    const { home, placed } = homeWith(['paginated-two-turns', 'legacy-two-turns']);
    const [named, unnamed] = placed as [Placed, Placed];
    writeFileSync(join(home, 'session_index.jsonl'), `${JSON.stringify({ id: named.threadId, thread_name: 'first name', updated_at: '2026-12-02T15:40:00.000000000Z' })}\n${JSON.stringify({ id: named.threadId, thread_name: 'Release notes ✓', updated_at: '2026-12-02T15:41:00.000000000Z' })}\n`);
    expect(fleet(namedDb, 'import', home).status).toBe(0);
    const target = mkdtempSync(join(scratch, 'export-'));
    for (const { threadId } of placed) expect(fleet(namedDb, 'export', threadId, '--home', target).status).toBe(0);
    const index = readFileSync(join(target, 'session_index.jsonl'), 'utf8').split('\n').filter((line) => line !== '');
    expect(index.map((line) => JSON.parse(line) as { id: string; thread_name: string }).map(({ id, thread_name }) => [id, thread_name])).toEqual([[named.threadId, 'Release notes ✓']]);
    // Exported again into the same home: the name is there already, and no line is added.
    expect(fleet(namedDb, 'export', named.threadId, '--home', target).status).toBe(0);
    expect(readFileSync(join(target, 'session_index.jsonl'), 'utf8').split('\n').filter((line) => line !== '')).toHaveLength(1);
    expect(unnamed.threadId).not.toBe(named.threadId);
  });

  test('an archived rollout is imported archived and exported into archived_sessions', async () => {
    const archivedDb = await testDatabase();
    const { home, placed } = homeWith(['legacy-two-turns']);
    const name = placed[0]!.relative.split('/').at(-1)!;
    mkdirSync(join(home, 'archived_sessions'));
    cpSync(join(home, placed[0]!.relative), join(home, 'archived_sessions', name));
    rmSync(join(home, 'sessions'), { recursive: true });
    expect(fleet(archivedDb, 'import', home).status).toBe(0);
    const target = mkdtempSync(join(scratch, 'export-'));
    expect(fleet(archivedDb, 'export', placed[0]!.threadId, '--home', target)).toEqual({ status: 0, stdout: `wrote ${join(target, 'archived_sessions', name)}\n`, stderr: '' });
    expect(readFileSync(join(target, 'archived_sessions', name)).equals(placed[0]!.bytes)).toBe(true);
  });
});

describe('fleet errors', () => {
  let db: PostgresConnection;
  beforeAll(async () => {
    db = await testDatabase();
  });

  test('a thread the store does not have', () => {
    expect(fleet(db, 'export', 'no-such-thread', '--home', scratch)).toEqual({ status: 1, stdout: '', stderr: 'thread-host fleet export: the store has no thread no-such-thread\n' });
  });

  test('a database that cannot be reached, and a postgres_url that is no URL', () => {
    const unreachable = fleet({ url: `postgresql://postgres@/none?host=${encodeURIComponent(join(scratch, 'no-socket-here'))}` }, 'import', scratch);
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).toMatch(/^thread-host fleet import: cannot reach PostgreSQL \(connect ENOENT .*no-socket-here\/\.s\.PGSQL\.5432\); check postgres_url or the PG\* variables\n$/);
    expect(fleet({ url: 'db.internal' }, 'import', scratch)).toEqual({
      status: 1,
      stdout: '',
      stderr: 'thread-host fleet import: invalid configuration: postgres_url: invalid value: not a URL, expected `postgresql://USER@HOST:PORT/DATABASE`\n',
    });
  });

  test('usage errors', () => {
    const usage = (stderr: string) => ({ status: 2, stdout: '', stderr: `thread-host: ${stderr}\nRun 'thread-host --help' for usage.\n` });
    expect(fleet(db, 'frob')).toEqual(usage("unknown fleet command 'frob'"));
    expect(fleet(db, 'export')).toEqual(usage('fleet export: missing THREAD_ID'));
    expect(fleet(db, 'import', scratch, 'extra')).toEqual(usage("fleet import: unexpected argument 'extra'"));
    expect(fleet(db, 'import', scratch, '--home', scratch)).toEqual(usage("fleet import: '--home' is for export; the home to import is its argument"));
    expect(fleet(db, 'import', join(scratch, 'no-such-home'))).toEqual(usage(`fleet import: ${join(scratch, 'no-such-home')} is not a directory (the home to import)`));
    expect(existsSync(join(scratch, 'sessions'))).toBe(false);
  });
});
