// thread/fork as codex-cli 0.171.0 answers it (test/fixtures/reference-answers/thread-fork.jsonl),
// on the same requests in the same order: paginated and legacy sources, whole and up to a
// turn, without turns, refusals, a fork of a fork, a source loaded by another process, the
// fork's cold reads and paged reads, the listing, and what the model is sent after a fork and
// after a fork's cold resume. Normalized as recorded (ids by first appearance, times by type);
// ordinals are left out, since thread-host writes fewer lines per turn than the reference, and
// so are the fields of the fork's session_meta that thread-host writes for no thread (its
// version, the reference's account and multi-agent markers).
//
// Every test runs on both thread stores. On PostgreSQL a thread has no file (`path` null where
// the recording shows one), and a fork's rows hold the history it keeps itself, as the files
// store's reader sees its file with its base put in: its rollout is compared from its
// session_meta on (the lines after the kept ones, ordinals from the session_meta's), and its
// session_meta names no base file (no `history_base` nor `forked_from_ordinal_exclusive`).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { conversationOf } from '../helpers/reference-lines.js';
import { mockModelConfig, TestServer, type Message } from '../helpers/test-server.js';
import { rootConfigOn, storeDatabase, THREAD_STORES } from '../helpers/thread-stores.js';

const RECORDING = new URL('../fixtures/reference-answers/thread-fork.jsonl', import.meta.url);
const NOISE = new Set(['thread/tokenUsage/updated', 'account/rateLimits/updated', 'thread/readState/changed']);
const TIME_KEYS = new Set(['startedAt', 'completedAt', 'durationMs', 'startedAtMs', 'completedAtMs', 'createdAt', 'updatedAt', 'recencyAt', 'timestamp', 'end_byte_offset']);
const UUID_V7 = /[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g;
// thread-host does not resolve a fork's source by path (nor a resume's): the step is not replayed.
const PATH_STEP = (line: Message) => line.params?.path !== undefined;

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

// The store's answer for the recording's file paths: none.
const STORED = '<no file: the PostgreSQL store>';
// What a fork's session_meta says of a base file, which the PostgreSQL store has none of.
const BASE_KEYS = ['history_base', 'forked_from_ordinal_exclusive'];

/** A thread's rollout records: its file's, or its rows in the store (from its session_meta's ordinal on, see above). */
async function rolloutRecords(thread: Message, db: PostgresConnection | null): Promise<Message[]> {
  if (db === null) return readFileSync(thread.path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
  const client = new pg.Client({ connectionString: db.url! });
  await client.connect();
  try {
    const rows = await client.query<{ line: string }>('SELECT line FROM rollout_lines WHERE thread_id = $1 ORDER BY ordinal', [thread.id]);
    const records = rows.rows.map((row) => JSON.parse(row.line) as Message);
    const from = records[0]!.ordinal as number | undefined;
    return from === undefined ? records : records.filter((record, i) => i === 0 || (record.ordinal as number) > from);
  } finally {
    await client.end();
  }
}

/** A fork's rollout as compared: its own session_meta, then the session_meta ids and turn boundaries in it. */
async function rolloutShape(thread: Message, db: PostgresConnection | null): Promise<Message> {
  const records = await rolloutRecords(thread, db);
  const { base_instructions: _instructions, context_window: _window, ...meta } = records[0]!.payload;
  return {
    meta: { ordinal: records[0]!.ordinal ?? null, ...meta },
    outline: records.flatMap((r) => (r.type === 'session_meta' ? [r.payload.id] : ['task_started', 'task_complete'].includes(r.payload.type) ? [r.payload.type] : [])),
  };
}

/** The recording's rollout lines in the same shape. */
function recordedShape(records: Message[]): Message {
  return {
    meta: { ordinal: records[0]!.ordinal, ...records[0]!.payload },
    outline: records.flatMap((r) => (r.type === 'session_meta' ? [r.payload.id] : ['task_started', 'task_complete'].includes(r.kind) ? [r.kind] : [])),
  };
}

function normalized(lines: Message[], home: string, cwd: string): Message[] {
  let text = lines
    .map((line) => JSON.stringify(line))
    .join('\n')
    .replaceAll(home, '$CODEX_HOME')
    .replaceAll(cwd, '<cwd>')
    .replace(/sessions\/\d{4}\/\d\d\/\d\d\//g, 'sessions/<date>/')
    .replace(/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-/g, 'rollout-<time>-');
  [...new Set(text.match(UUID_V7) ?? [])].forEach((id, i) => (text = text.replaceAll(id, `<id-${i + 1}>`)));
  return text.split('\n').map((line) => JSON.parse(line, (key, value) => (TIME_KEYS.has(key) && value !== null ? typeof value : value)) as Message);
}

// What differs by writer, not by behaviour: ordinals (the count of lines a turn takes), the
// writer's version and name, and fields only the reference writes.
function comparable(lines: Message[]): Message[] {
  const text = JSON.stringify(lines)
    .replace(/"(ordinal|forked_from_ordinal_exclusive|end_ordinal_exclusive)":\d+/g, '"$1":"ordinal"')
    .replace(/\\"rolloutOrdinal\\":\d+/g, '\\"rolloutOrdinal\\":\\"ordinal\\"');
  return JSON.parse(text, (key, value) => (['account_scoped', 'multi_agent_version', 'cli_version', 'originator'].includes(key) ? undefined : value)) as Message[];
}

/** The recording as the PostgreSQL store answers it (see above); as it is for the files store. */
function onStore(lines: Message[], db: PostgresConnection | null): Message[] {
  if (db === null) return lines;
  const text = JSON.stringify(lines).replace(/"\$CODEX_HOME\/[^"]*\.jsonl"/g, JSON.stringify(STORED));
  return JSON.parse(text, (key, value) => (BASE_KEYS.includes(key) ? undefined : value)) as Message[];
}

function projected(result: Message | undefined): Message | undefined {
  if (!result?.thread) return result;
  const t = result.thread;
  return {
    thread: { id: t.id, forkedFromId: t.forkedFromId, preview: t.preview, ephemeral: t.ephemeral, historyMode: t.historyMode, status: t.status, path: t.path ?? (t.ephemeral ? null : STORED), turns: t.turns },
    keys: Object.keys(result).sort(),
  };
}

describe.each(THREAD_STORES)('%s store', (store) => {
  test('thread/fork answers, writes, reads and reaches the model as the reference does', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-fork-'));
    const cwd = mkdtempSync(join(tmpdir(), 'thread-host-fork-cwd-'));
    const db = await storeDatabase(store);
    writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url, rootConfigOn(db, 'thread_unload_delay_secs = 0')));
    const start = () => TestServer.start({ home, keepConfig: true });
    const lines: Message[] = [];
    const servers: TestServer[] = [];
    try {
      let server = await start();
      servers.push(server);
      let mark = 0;
      const ask = async (method: string, params: Message, raw = false) => {
        mark = server.notifications().length;
        const reply = await server.requestRaw(method, params);
        lines.push({ method, params, answer: reply.error ? { error: reply.error } : { result: raw ? reply.result : projected(reply.result) } });
        return reply.result;
      };
      const notes = async () => {
        await server.request('thread/loaded/list', {});
        const got = server.notifications().slice(mark).filter((n) => String(n.method).startsWith('thread/') && !NOISE.has(n.method));
        lines.push({ notifications: got.map((n) => ({ method: n.method, params: projected(n.params) })) });
      };
      const turn = async (threadId: string, text: string) => {
        const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
        await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id);
        return started.id as string;
      };
      const conversation = (from: number) => mock.requests.slice(from).map((q) => conversationOf((q.body as Message).input));

      const upToForks: string[] = [];
      const sources: string[] = [];
      for (const mode of ['paginated', 'legacy']) {
        lines.push({ section: mode });
        const { thread } = await server.request('thread/start', { cwd, historyMode: mode });
        const ids: string[] = [];
        for (const text of ['one', 'two', 'three']) ids.push(await turn(thread.id, text));
        const whole = await ask('thread/fork', { threadId: thread.id });
        await notes();
        const upTo = await ask('thread/fork', { threadId: thread.id, lastTurnId: ids[1] });
        await ask('thread/fork', { threadId: thread.id, lastTurnId: ids[0], excludeTurns: true });
        await ask('thread/fork', { threadId: thread.id, lastTurnId: 'nope' });
        await ask('thread/fork', { threadId: thread.id, lastTurnId: '00000000-0000-7000-8000-000000000000' });
        lines.push({ rollout: 'whole', ...(await rolloutShape(whole.thread, db)) });
        lines.push({ rollout: 'upTo', ...(await rolloutShape(upTo.thread, db)) });
        upToForks.push(upTo.thread.id);
        sources.push(thread.id);
        const before = mock.requests.length;
        await turn(upTo.thread.id, 'four');
        lines.push({ modelRequests: conversation(before) });
        const chained = await ask('thread/fork', { threadId: upTo.thread.id });
        lines.push({ rollout: 'chained', ...(await rolloutShape(chained.thread, db)) });
        await ask('thread/read', { threadId: chained.thread.id, includeTurns: true });
      }
      lines.push({ section: 'errors' });
      await ask('thread/fork', { threadId: '00000000-0000-0000-0000-000000000000' });
      await ask('thread/fork', { threadId: 'nope' });
      await ask('thread/fork', {});
      const { thread: fresh } = await server.request('thread/start', { cwd });
      await ask('thread/fork', { threadId: fresh.id });
      const { thread: ephemeral } = await server.request('thread/start', { cwd, ephemeral: true });
      await turn(ephemeral.id, 'ephemeral');
      await ask('thread/fork', { threadId: ephemeral.id });
      const { thread: source } = await server.request('thread/start', { cwd });
      await turn(source.id, 'source');
      await ask('thread/fork', { threadId: source.id, ephemeral: true });
      await ask('thread/fork', { threadId: source.id, beforeTurnId: 'x' });
      await ask('thread/archive', { threadId: source.id }, true);
      await ask('thread/fork', { threadId: source.id });
      expect(await server.close()).toBe(0);

      lines.push({ section: 'cold' });
      const forker = await start();
      const holder = await start();
      servers.push(forker, holder);
      server = holder;
      const { thread: held } = await server.request('thread/start', { cwd });
      await turn(held.id, 'held elsewhere');
      server = forker;
      const forked = await ask('thread/fork', { threadId: held.id });
      await ask('thread/read', { threadId: forked.thread.id, includeTurns: true });
      await ask('thread/turns/list', { threadId: forked.thread.id }, true);
      await ask('thread/items/list', { threadId: forked.thread.id }, true);
      await ask('thread/turns/list', { threadId: upToForks[0] }, true);
      const list = await server.request('thread/list', {});
      lines.push({ list: list.data.map((t: Message) => ({ id: t.id, preview: t.preview, forkedFromId: t.forkedFromId })) });
      expect([await holder.close(), await forker.close()]).toEqual([0, 0]);

      lines.push({ section: 'resumed' });
      server = await start();
      servers.push(server);
      for (const [i, id] of upToForks.entries()) {
        // A fork resumed cold names its source, as the reference's does (its rollout says so).
        const resumed = await server.request('thread/resume', { threadId: id, excludeTurns: true });
        expect([resumed.thread.forkedFromId, resumed.thread.preview]).toEqual([sources[i], 'one']);
        const before = mock.requests.length;
        await turn(id, 'five');
        lines.push({ modelRequests: conversation(before) });
      }
      expect(await server.close()).toBe(0);

      const recorded = readFileSync(RECORDING, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
      const expected = recorded.filter((line) => !PATH_STEP(line)).map((line) => (line.rollout ? { rollout: line.rollout, ...recordedShape(line.records) } : line));
      expect(comparable(onStore(normalized(lines, home, cwd), db))).toEqual(comparable(onStore(expected, db)));
      expect(servers.flatMap((s) => s.schemaProblems)).toEqual([]);
    } finally {
      for (const s of servers) await s.close().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);

  // The source's writer goes on while it is forked: the fork reads only the lines already there
  // (never under the source's lock), and neither the source's rollout nor its turns are touched.
  test('a fork of a thread whose turn is running here keeps what it asks for and leaves the source whole', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-fork-running-'));
    writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url, rootConfigOn(await storeDatabase(store), 'thread_unload_delay_secs = 0')));
    try {
      const server = await TestServer.start({ home, keepConfig: true });
      const { thread: source } = await server.request('thread/start', {});
      const first = await server.request('turn/start', { threadId: source.id, input: [{ type: 'text', text: 'one' }] });
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === first.turn.id);
      const before = (await server.request('thread/read', { threadId: source.id, includeTurns: true })).thread.turns;

      mock.enqueue({ kind: 'stall', ms: 1_000 });
      const running = await server.request('turn/start', { threadId: source.id, input: [{ type: 'text', text: 'two' }] });
      await server.waitForNotification('item/completed', (p: Message) => p.turnId === running.turn.id && p.item.type === 'userMessage');
      const { thread: fork } = await server.request('thread/fork', { threadId: source.id, lastTurnId: first.turn.id });
      expect([fork.turns, (await server.request('thread/read', { threadId: source.id })).thread.status]).toEqual([
        before,
        { type: 'active', activeFlags: [] },
      ]);
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === running.turn.id);
      const after = (await server.request('thread/read', { threadId: source.id, includeTurns: true })).thread.turns;
      expect(after.map((turn: Message) => [turn.items[0].content[0].text, turn.status])).toEqual([
        ['one', 'completed'],
        ['two', 'completed'],
      ]);
      expect(await server.close()).toBe(0);

      // Cold, in a new process: the source as it was read warm, the fork with its one turn.
      const reader = await TestServer.start({ home, keepConfig: true });
      expect((await reader.request('thread/read', { threadId: source.id, includeTurns: true })).thread.turns).toEqual(after);
      expect((await reader.request('thread/read', { threadId: fork.id, includeTurns: true })).thread.turns).toEqual(before);
      expect(await reader.close()).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  // An ephemeral fork (test/fixtures/reference-answers/thread-fork-ephemeral.jsonl): written
  // nowhere, its history only in its actor; a paginated source's only without turns in the answer.
  test('an ephemeral fork answers, reaches the model and is refused later reads as the reference does', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-fork-ephemeral-'));
    writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url, rootConfigOn(await storeDatabase(store), 'thread_unload_delay_secs = 0')));
    const server = await TestServer.start({ home, keepConfig: true });
    try {
      const lines: Message[] = [];
      const ask = async (method: string, params: Message) => {
        const reply = await server.requestRaw(method, params);
        lines.push({ method, params, answer: reply.error ? { error: reply.error } : { result: projected(reply.result) } });
        return reply.result;
      };
      const turn = async (threadId: string, text: string) => {
        const { turn: started } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
        await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === started.id);
      };
      for (const historyMode of ['paginated', 'legacy']) {
        lines.push({ section: historyMode });
        const { thread } = await server.request('thread/start', { historyMode });
        await turn(thread.id, 'one');
        for (const params of [{ ephemeral: true }, { ephemeral: true, excludeTurns: true }]) {
          const fork = await ask('thread/fork', { threadId: thread.id, ...params });
          if (fork === undefined) continue;
          const before = mock.requests.length;
          await turn(fork.thread.id, 'two');
          lines.push({ modelRequests: mock.requests.slice(before).map((q) => conversationOf((q.body as Message).input)) });
          await ask('thread/read', { threadId: fork.thread.id, includeTurns: true });
          await ask('thread/resume', { threadId: fork.thread.id });
          await ask('thread/fork', { threadId: fork.thread.id });
        }
      }
      const recorded = readFileSync(new URL('thread-fork-ephemeral.jsonl', RECORDING), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
      expect(normalized(lines, home, home)).toEqual(recorded);
      expect(await server.close()).toBe(0);
    } finally {
      await server.close().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    }
  });
});
