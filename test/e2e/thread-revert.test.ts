// Threads codex-cli 0.171.0 reverted (test/fixtures/rollouts/reference-reverted, recorded with
// the real binary): a revert starts a new rollout file that continues a prefix of the one
// before (history-base.ts), and the thread lives on in the newest. thread-host reads such a
// thread as the reference does, resumes it with the same history for the model, and appends to
// its newest file without changing a byte of the others. thread/revert itself is served as the
// reference serves it: the scenario test/fixtures/reference-answers/thread-revert.jsonl records
// (test/helpers/revert-scenario.ts) gives the same transcript on thread-host, but for the lines
// test/fixtures/revert/thread-host-differences.json lists with why (thread-host's own rollout
// lines, hence ordinals in cursors, and a few things it does not keep). That scenario runs on
// the PostgreSQL store too, where a revert replaces the thread's rows with what the files
// store's reader sees of the new file (`onTheStore` says how the recording reads there).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { createReferenceHistoryDb, threadRows } from '../helpers/reference-history-db.js';
import { parseRevertedRolloutFileName, revertedRolloutPathFor } from '../../src/common/rollout/rollout-path.js';
import { conversationOf } from '../helpers/reference-lines.js';
import { revertScenario } from '../helpers/revert-scenario.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { rootConfigOn, storeDatabase, THREAD_STORES } from '../helpers/thread-stores.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/rollouts/reference-reverted/', import.meta.url));
const answers = JSON.parse(readFileSync(join(FIXTURE, 'answers.json'), 'utf8')) as Message;
const threadId: string = answers.threadId;

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

/** The recording's rollout paths, in this home. */
const here = (home: string, value: unknown): Message => JSON.parse(JSON.stringify(value).replaceAll(`${answers.home}/sessions/`, `${home}/sessions/`)) as Message;

/** The thread's files, by where they are under the home. */
function filesOf(home: string): string[] {
  const under = (dir: string): string[] => (existsSync(join(home, dir)) ? readdirSync(join(home, dir), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl')).map((name) => `${dir}/${basename(name)}`) : []);
  return [...under('sessions'), ...under('archived_sessions')].sort();
}

/** Where a rollout ends, and the ordinal its next line gets. */
function endOf(path: string): { next_rollout_byte_offset: number; next_rollout_ordinal: number } {
  const bytes = readFileSync(path);
  const last = bytes.subarray(bytes.lastIndexOf(0x0a, bytes.length - 2) + 1, bytes.length - 1).toString('utf8');
  return { next_rollout_byte_offset: bytes.length, next_rollout_ordinal: (JSON.parse(last) as Message).ordinal + 1 };
}

function rolloutBytes(home: string): Record<string, Buffer> {
  const dir = join(home, 'sessions', '2026', '12', '05');
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))]));
}

test('a thread the reference reverted is read, resumed and continued as the reference does', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-reverted-'));
  cpSync(join(FIXTURE, 'sessions'), join(home, 'sessions'), { recursive: true });
  // A home with the reference's history database: thread-host projects what it writes there.
  const database = join(home, 'thread_history_1.sqlite');
  createReferenceHistoryDb(database);
  // A checkpoint under the thread's id, as the reference leaves one for the thread's first file,
  // that happens to fall where the newest file ends, at its next ordinal: projecting what
  // thread-host appends there under the thread's id would look consistent, and be wrong.
  const checkpoint = { thread_id: threadId, ...endOf(join(home, 'sessions', '2026', '12', '05', basename(answers.threadRead.thread.path))) };
  const db = new Database(database);
  db.prepare('INSERT INTO thread_history_projection_state VALUES (@thread_id, @next_rollout_byte_offset, @next_rollout_ordinal)').run(checkpoint);
  db.close();
  const server = await TestServer.start({ home, modelUrl: mock.url });
  try {
    const before = rolloutBytes(server.home);
    const expected = here(server.home, answers);
    const read = await server.request('thread/read', { threadId, includeTurns: true });
    // The reference's recency comes from its state database; thread-host's is the last update
    // (as for every stored thread, reference-rollouts.test.ts).
    expect(read.thread).toEqual({ ...expected.threadRead.thread, recencyAt: read.thread.updatedAt });
    const turns = await server.request('thread/turns/list', { threadId });
    expect(turns.data).toEqual(expected.turnsList.data);
    const items = await server.request('thread/items/list', { threadId });
    expect(items.data).toEqual(expected.itemsList.data);

    const { thread } = await server.request('thread/resume', { threadId });
    expect([thread.path, thread.turns]).toEqual([expected.resume.thread.path, expected.resume.thread.turns]);
    const sampled = mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'six' }] });
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    expect(mock.requests.slice(sampled).map((r) => conversationOf((r.body as Message).input))).toEqual(expected.modelRequests);

    // The new turn went to the newest file, after what was there; the older files are as they were.
    const after = rolloutBytes(server.home);
    const newest = basename(expected.threadRead.thread.path as string);
    for (const [name, bytes] of Object.entries(before)) {
      expect(name === newest ? after[name]!.subarray(0, bytes.length) : after[name]).toEqual(bytes);
    }
    expect(after[newest]!.length).toBeGreaterThan(before[newest]!.length);
    // Not under the thread's id: the reference keys the rows of a file a revert started by
    // that file's id.
    expect(threadRows(database, threadId)).toEqual({ turns: [], items: [], checkpoint });
    // Nor under the newest file's id: the reference wrote that file, with records thread-host
    // does not write, so the reference catches it up itself at its next resume.
    expect(threadRows(database, parseRevertedRolloutFileName(newest)!.fileId)).toEqual({ turns: [], items: [], checkpoint: null });
  } finally {
    expect(await server.close()).toBe(0);
    rmSync(home, { recursive: true, force: true });
  }
});

test('archive, unarchive and delete take every file of a reverted thread along, as the reference does', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    cpSync(join(FIXTURE, 'sessions'), join(server.home, 'sessions'), { recursive: true });
    const names = readdirSync(join(FIXTURE, 'sessions', '2026', '12', '05')).sort();
    const expected = here(server.home, answers);
    expect(await server.request('thread/archive', { threadId })).toEqual({});
    expect(filesOf(server.home)).toEqual(names.map((name) => `archived_sessions/${name}`));
    const archivedRead = await server.request('thread/read', { threadId, includeTurns: true });
    expect(archivedRead.thread.turns).toEqual(expected.threadRead.thread.turns);
    const { thread } = await server.request('thread/unarchive', { threadId });
    expect([thread.path, filesOf(server.home)]).toEqual([expected.threadRead.thread.path, names.map((name) => `sessions/${name}`)]);
    expect((await server.request('thread/read', { threadId, includeTurns: true })).thread.turns).toEqual(expected.threadRead.thread.turns);
    expect(await server.request('thread/delete', { threadId })).toEqual({});
    expect(filesOf(server.home)).toEqual([]);
    expect((await server.requestRaw('thread/read', { threadId })).error).toEqual({ code: -32600, message: `thread not loaded: ${threadId}` });
  } finally {
    expect(await server.close()).toBe(0);
  }
});

/** The reference's transcript, each line thread-host gives differently replaced by the one it gives. */
function expectedTranscript(): unknown[] {
  const recording = readFileSync(new URL('../fixtures/reference-answers/thread-revert.jsonl', import.meta.url), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as unknown);
  const differences = JSON.parse(readFileSync(new URL('../fixtures/revert/thread-host-differences.json', import.meta.url), 'utf8')) as { lines: Record<string, { line: unknown }> };
  return recording.map((line, index) => differences.lines[String(index + 1)]?.line ?? line);
}

type FileViews = Record<string, unknown[][]>;

/**
 * The transcript as the PostgreSQL store gives it: no thread has a file (`path` null), and the
 * snapshots of the rollout files become each thread's rows, which are what the files store's
 * reader sees of its newest file: that file's session_meta, then its history base's lines (the
 * base's own base put in first, recursively), then its own lines; no session_meta names a base.
 */
function onTheStore(transcript: unknown[]): unknown[] {
  const text = JSON.stringify(transcript).replace(/"\$CODEX_HOME\/sessions\/[^"]*\.jsonl"/g, 'null');
  return (JSON.parse(text) as Message[]).map((line) => (line.files === undefined ? line : { files: rowsReadFrom(line.files as FileViews) }));
}

function rowsReadFrom(files: FileViews): FileViews {
  const named = (id: string) => Object.keys(files).find((name) => name.endsWith(`-${id}.jsonl`) || name.endsWith(`_${id}.jsonl`))!;
  const expand = (name: string, end: number | null): unknown[][] => {
    const [meta, ...own] = files[name]!;
    const base = (meta![3] as Message).history_base as { thread_id: string; end_ordinal_exclusive: number } | null;
    const inherited = base === null ? [] : expand(named(base.thread_id), base.end_ordinal_exclusive);
    return [meta!, ...inherited, ...own.filter((view) => end === null || (view[0] as number) < end)];
  };
  const newest = new Map<string, string>();
  for (const name of Object.keys(files).sort((a, b) => fileNumber(a) - fileNumber(b))) newest.set(/rollout-<time>-(<[a-z]+>)/.exec(name)![1]!, name);
  return Object.fromEntries(
    [...newest].map(([thread, name]) => [`rows of ${thread}`, expand(name, null).map((view) => (view[1] === 'session_meta' ? [...view.slice(0, 3), { ...(view[3] as Message), history_base: null }] : view))]),
  );
}

/** A revert file's number (its `<file-N>` label); a thread's first file comes before them all. */
const fileNumber = (name: string): number => Number(/_<file-(\d+)>\.jsonl$/.exec(name)?.[1] ?? 0);

/** Each thread's rollout records in the store, by `rows of <thread id>`. */
async function storedRows(db: PostgresConnection): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: db.url! });
  await client.connect();
  try {
    const rows = await client.query<{ thread_id: string; line: string }>('SELECT thread_id, line FROM rollout_lines ORDER BY thread_id, ordinal');
    const byThread: Record<string, string[]> = {};
    for (const row of rows.rows) (byThread[`rows of ${row.thread_id}`] ??= []).push(row.line);
    return byThread;
  } finally {
    await client.end();
  }
}

describe.each(THREAD_STORES)('%s store', (store) => {
  test('thread/revert answers, notifies, writes and feeds the model as the reference does', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-revert-'));
    try {
      const db = await storeDatabase(store);
      let first = true;
      const lines = await revertScenario({
        mock,
        home,
        start: () => {
          const options = first ? { home, modelUrl: mock.url, rootConfig: rootConfigOn(db, 'thread_unload_delay_secs = 0') } : { home, keepConfig: true };
          first = false;
          return TestServer.start(options);
        },
        ...(db === null ? {} : { storedRows: () => storedRows(db) }),
      });
      expect(lines).toEqual(db === null ? expectedTranscript() : onTheStore(expectedTranscript()));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});

test("a thread the reference reverted, resumed cold, is reverted again through the reference's chain of files", async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  try {
    cpSync(join(FIXTURE, 'sessions'), join(server.home, 'sessions'), { recursive: true });
    const expected = here(server.home, answers);
    const [kept, dropped] = expected.threadRead.thread.turns as Message[];
    await server.request('thread/resume', { threadId, excludeTurns: true });
    const reverted = await server.request('thread/revert', { threadId, beforeTurnId: dropped!.id });
    const dir = join(server.home, 'sessions', '2026', '12', '05');
    const previous = join(dir, basename(expected.threadRead.thread.path as string));
    const added = readdirSync(join(server.home, 'sessions'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl') && !existsSync(join(FIXTURE, 'sessions', name)));
    expect(added).toHaveLength(1);
    const path = join(server.home, 'sessions', added[0]!);
    expect([reverted.thread.path, reverted.thread.preview, reverted.thread.turns, basename(path).startsWith(`rollout-`) && basename(path).includes(`-${threadId}_`)]).toEqual([path, 'one', [], true]);
    // The new file continues the newest of the reference's files up to where the dropped turn starts.
    const first = JSON.parse(readFileSync(path, 'utf8').split('\n')[0]!) as Message;
    const previousBytes = readFileSync(previous);
    const cut = previousBytes.indexOf(Buffer.from(`"ordinal":${first.ordinal},`));
    const lineStart = previousBytes.lastIndexOf(0x0a, cut) + 1;
    expect(first.payload.history_base).toEqual({ thread_id: basename(previous).slice(-42, -6), end_ordinal_exclusive: first.ordinal, end_byte_offset: lineStart });
    expect(previousBytes.subarray(lineStart).toString('utf8')).toContain(`"turn_id":"${dropped!.id}"`);
    // The file's name, its session_meta and the thread's createdAt are one time.
    const atMs = Date.parse(first.timestamp as string);
    expect([path, reverted.thread.createdAt]).toEqual([revertedRolloutPathFor(server.home, threadId, basename(path).slice(-42, -6), atMs), Math.floor(atMs / 1000)]);
    expect((await server.request('thread/read', { threadId, includeTurns: true })).thread.turns).toEqual([kept]);
    const sampled = mock.requests.length;
    const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text: 'again' }] });
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    expect(mock.requests.slice(sampled).map((r) => conversationOf((r.body as Message).input))).toEqual([[['user', 'one'], ['assistant', 'Done'], ['user', 'again']]]);
  } finally {
    expect(await server.close()).toBe(0);
  }
});
