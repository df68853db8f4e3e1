// thread/name/set, thread/archive, thread/unarchive and thread/delete on the PostgreSQL thread
// store: the reference's recordings (test/fixtures/reference-answers/, which thread-name,
// thread-archive and thread-delete.test.ts replay on the files store) replayed on hosts of one
// store, with the same answers, errors and notifications. A thread of this store has no file,
// so its `path` is null where the recording shows one, and the recording's snapshots of the
// home (rollouts live or archived, session_index.jsonl) are compared with the store's rows.
// Then what a fleet adds: every host shows the name one host set, and archiving or deleting a
// thread another host has loaded is refused as on a shared home.
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { deleteRecordingSetup, listedNames, nameOf, replayRenames, startedThread } from '../helpers/recorded-thread-changes.js';
import { readRecording, replay, type ReplayStep } from '../helpers/reference-replay.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { testDatabase } from '../helpers/test-database.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

const storeConfig = (db: PostgresConnection): string => [`thread_store = "postgres"`, `postgres_url = ${JSON.stringify(db.url)}`, `thread_unload_delay_secs = 0`].join('\n');
const startHost = (db: PostgresConnection): Promise<TestServer> => TestServer.start({ modelUrl: mock.url, rootConfig: storeConfig(db) });

// The store's answer for the recording's file paths: none.
const STORED = '<no file: the PostgreSQL store>';
const pathShown = (path: unknown): unknown => (path === null ? STORED : path);
const threadOf = (r: Message) => ({ id: r.thread.id, path: pathShown(r.thread.path), status: r.thread.status, preview: r.thread.preview, forkedFromId: r.thread.forkedFromId, name: r.thread.name, turns: r.thread.turns });
const listed = (r: Message) => ({ data: r.data.map((t: Message) => ({ id: t.id, path: pathShown(t.path) })), nextCursor: r.nextCursor });
const project = (method: string, result: Message) => (method === 'thread/list' ? listed(result) : threadOf(result));

/** The recording's steps, with the store's path where it shows a rollout's. */
const onTheStore = (steps: ReplayStep[]): ReplayStep[] =>
  steps.map((step) => (step.projected ? { ...step, answer: JSON.parse(JSON.stringify(step.answer).replace(/"\$CODEX_HOME\/[^"]*\.jsonl"/g, JSON.stringify(STORED))) } : step));

/** What the store holds of each thread that has records, as the recording's home snapshot says it: live or archived, and its last name. */
function expectedRows(snapshot: { files: string[]; session_index?: Message[] | null }, ids: Record<string, string>): Array<{ id: string; archived: boolean; name: string | null }> {
  const names = new Map<string, string>();
  for (const entry of snapshot.session_index ?? []) names.set(entry.id, entry.thread_name);
  return snapshot.files
    .map((file) => {
      const label = /-(<[a-z]+>)\.jsonl$/.exec(file)![1]!;
      return { id: ids[label]!, archived: file.startsWith('archived_sessions/'), name: names.get(label) ?? null };
    })
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Every thread the store holds records of, with whether it is archived and its name; lines with no thread are reported too. */
async function storedRows(db: PostgresConnection): Promise<{ rows: Array<{ id: string; archived: boolean; name: string | null }>; orphanLines: number }> {
  const client = new pg.Client({ connectionString: db.url! });
  await client.connect();
  try {
    const rows = await client.query<{ id: string; archived: boolean; name: string | null }>(
      `SELECT thread_id AS id, archived_at IS NOT NULL AS archived, name FROM threads t
       WHERE EXISTS (SELECT 1 FROM rollout_lines l WHERE l.thread_id = t.thread_id) ORDER BY thread_id`,
    );
    const orphans = await client.query<{ count: string }>('SELECT count(*) FROM rollout_lines l WHERE NOT EXISTS (SELECT 1 FROM threads t WHERE t.thread_id = l.thread_id)');
    return { rows: rows.rows, orphanLines: Number(orphans.rows[0]!.count) };
  } finally {
    await client.end();
  }
}

const checkStoredRows = (db: PostgresConnection, ids: Record<string, string>) => async (expected: { files: string[]; session_index?: Message[] | null }) => {
  expect(await storedRows(db)).toEqual({ rows: expectedRows(expected, ids), orphanLines: 0 });
};

test('archive and unarchive answer as the reference does, step by step, on the store', async () => {
  const db = await testDatabase();
  const [server, other] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const ids = { '<thread>': await startedThread(server, 'hello'), '<other>': await startedThread(other, 'held by another process') };
    await replay(onTheStore(readRecording('thread-archive.jsonl')), { server, home: server.home, ids, project });
  } finally {
    await Promise.all([server.close(), other.close()]);
  }
});

test('delete answers and removes what the reference does, step by step, on the store', async () => {
  const db = await testDatabase();
  const [server, other] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const ids = await deleteRecordingSetup(server, other);
    await replay(readRecording('thread-delete.jsonl'), { server, home: server.home, ids, checkStored: checkStoredRows(db, ids) });
  } finally {
    await Promise.all([server.close(), other.close()]);
  }
});

test('renames answer as the reference does, and every host of the store shows the name', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    // The host that set it, with the thread loaded, and another host reading the store.
    const threadId = await replayRenames(a, [b]);

    // B renames it and resumes it: the name comes with it. A, which no longer has it loaded,
    // reads and lists B's name; a host that has it loaded lists the store's name too.
    expect(await b.request('thread/name/set', { threadId, name: 'from B' })).toEqual({});
    expect((await b.request('thread/resume', { threadId })).thread.name).toBe('from B');
    expect([await nameOf(a, threadId), await listedNames(a), await listedNames(b)]).toEqual(['from B', ['from B'], ['from B']]);
    // A renames the thread B has loaded: names take no ownership, as on files. B's clients hear
    // nothing of it (B renamed the thread before it loaded it, so none heard that either); B's
    // loaded thread shows the name B knows until B looks the thread up again; its listing, A's.
    expect(await a.request('thread/name/set', { threadId, name: 'from A' })).toEqual({});
    expect([await nameOf(b, threadId), await listedNames(b), b.notifications('thread/name/updated')]).toEqual(['from B', ['from A'], []]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a host archives and deletes only threads no other live host has loaded', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'on A');
    for (const method of ['thread/archive', 'thread/delete']) {
      expect((await b.requestRaw(method, { threadId })).error).toEqual({ code: -32600, message: `thread ${threadId} already has an active writer` });
    }
    await a.request('thread/unsubscribe', { threadId });
    await a.waitForNotification('thread/closed', (p: Message) => p.threadId === threadId);
    // Freed by A at unload: B archives it; A sees it archived, and cannot resume it.
    expect(await b.request('thread/archive', { threadId })).toEqual({});
    expect([(await a.request('thread/list', {})).data, (await a.request('thread/list', { archived: true })).data.map((t: Message) => t.id)]).toEqual([[], [threadId]]);
    expect((await a.requestRaw('thread/resume', { threadId })).error).toEqual({ code: -32600, message: `session ${threadId} is archived. Run \`codex unarchive ${threadId}\` to unarchive it first.` });
    // A unarchives it and resumes it; B, refused while A has it, deletes it once A unloads it.
    expect((await a.request('thread/unarchive', { threadId })).thread.preview).toBe('on A');
    expect((await a.request('thread/resume', { threadId })).thread.turns.length).toBe(1);
    expect((await b.requestRaw('thread/delete', { threadId })).error).toEqual({ code: -32600, message: `thread ${threadId} already has an active writer` });
    await a.request('thread/unsubscribe', { threadId });
    await a.waitForNotification('thread/closed', (p: Message) => p.threadId === threadId);
    expect(await b.request('thread/delete', { threadId })).toEqual({});
    expect([(await a.requestRaw('thread/read', { threadId })).error, (await storedRows(db)).rows]).toEqual([{ code: -32600, message: `thread not loaded: ${threadId}` }, []]);
    expect([a.notifications('thread/archived').length, a.notifications('thread/deleted').length]).toEqual([0, 0]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

/** An ephemeral thread (no history in any store, so nothing to own) named, then deleted twice: each reply and the thread/ notifications, the thread's id as `<thread>`. */
async function ephemeralAnswers(server: TestServer): Promise<unknown> {
  const { thread } = await server.request('thread/start', { ephemeral: true });
  const steps: Array<[string, Message]> = [
    ['thread/name/set', { threadId: thread.id, name: 'brief' }],
    ['thread/delete', { threadId: thread.id }],
    ['thread/delete', { threadId: thread.id }],
  ];
  const replies: unknown[] = [];
  for (const [method, params] of steps) {
    const reply = await server.requestRaw(method, params);
    replies.push(reply.error === undefined ? { result: reply.result } : { error: reply.error });
  }
  await server.waitForNotification('thread/deleted', (p: Message) => p.threadId === thread.id);
  // thread/started shows the host's own cwd and times: the notifications after it.
  const notifications = server.notifications().filter((n) => String(n.method).startsWith('thread/') && n.method !== 'thread/started').map((n) => ({ method: n.method, params: n.params }));
  return JSON.parse(JSON.stringify({ replies, notifications }).replaceAll(thread.id, '<thread>'));
}

test('an ephemeral thread is named and deleted as on the files store', async () => {
  const db = await testDatabase();
  const [files, store] = await Promise.all([TestServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0' }), startHost(db)]);
  try {
    const onFiles = await ephemeralAnswers(files);
    expect(onFiles).toEqual({
      replies: [{ result: {} }, { result: {} }, { error: { code: -32600, message: 'no rollout found for thread id <thread>' } }],
      notifications: [
        { method: 'thread/name/updated', params: { threadId: '<thread>', threadName: 'brief' } },
        { method: 'thread/status/changed', params: { threadId: '<thread>', status: { type: 'notLoaded' } } },
        { method: 'thread/deleted', params: { threadId: '<thread>' } },
      ],
    });
    expect(await ephemeralAnswers(store)).toEqual(onFiles);
  } finally {
    await Promise.all([files.close(), store.close()]);
  }
});
