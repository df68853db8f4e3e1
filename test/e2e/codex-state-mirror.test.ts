// thread-host mirroring names, read receipts and queues into the reference's state and queue
// databases, end to end: the real CLI in a home holding a state_5.sqlite and a queue_1.sqlite
// as codex 0.171.0 creates them (the exact rows of each operation, against the reference's
// own, are tested in test/unit/codex-state/codex-state-mirror.test.ts). The rows follow each
// request shortly after its answer; thread/delete takes the thread's rows; the key and a
// lockfile home turn it off, leaving both databases byte for byte as they were.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { createReferenceStateDb, setThreadRows, stateFixture, stateRows, type StateRows } from '../helpers/reference-state-db.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

let home: string;
let databases: { state: string; queue: string };
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'codex-state-mirror-'));
  databases = { state: join(home, 'state_5.sqlite'), queue: join(home, 'queue_1.sqlite') };
  createReferenceStateDb('state', databases.state);
  createReferenceStateDb('queue', databases.queue);
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const rows = () => stateRows(databases.state, databases.queue);

/** The rows once `check` holds of them (the mirror follows the answer), within a few seconds. */
async function eventually(check: (rows: StateRows) => boolean): Promise<StateRows> {
  const until = Date.now() + 5_000;
  for (;;) {
    const now = rows();
    if (check(now) || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The reference's row for the thread, as if it had indexed it (the recorded row, re-keyed). */
function indexThread(threadId: string, path: string): Record<string, unknown> {
  const recorded = stateFixture<{ steps: Array<{ rows: StateRows }> }>('steps.json').steps[0]!.rows.threads[0]!;
  const row = { ...recorded, id: threadId, rollout_path: path, name: null };
  setThreadRows(databases.state, [row]);
  return row;
}

const text = (value: string) => ({ type: 'text', text: value, text_elements: [] });
const payload = (content: unknown[], client: string, metadata?: Record<string, string>) =>
  JSON.stringify({ UserInput: { content, client_id: client, ...(metadata ? { responsesapi_client_metadata: metadata } : {}) } });
/** A queued row without its times (they are the host's clock's), and its times' order. */
const queued = (r: StateRows) => r.queued_items.map(({ created_at_ms, updated_at_ms, ...rest }) => ({ ...rest, updatedAfterCreated: (updated_at_ms as number) > (created_at_ms as number) }));

describe('a thread thread-host changes', () => {
  test('has its name, read receipt and queue in the reference\'s databases after each change, and none of them after its deletion', async () => {
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = 0', env: { THREAD_HOST_LOG: 'info' } });
    try {
      const { thread } = await server.request('thread/start', {});
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: [text('one')] });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
      const receiptOf = async () => (await server.request('thread/read', { threadId: thread.id })).readState;
      let readState = await receiptOf();
      const receipt = () => ({ thread_id: thread.id, first_unread_turn: readState.firstUnread?.turnId ?? (readState.firstUnread ? '' : null), revision: readState.revision, last_published_turn: turn.id });
      expect((await eventually((r) => r.thread_read_receipts.length > 0)).thread_read_receipts).toEqual([receipt()]);

      const row = indexThread(thread.id, thread.path);
      await server.request('thread/name/set', { threadId: thread.id, name: 'Renamed' });
      expect((await eventually((r) => r.threads[0]?.name === 'Renamed')).threads).toEqual([{ ...row, name: 'Renamed', updated_at_ms: (row.updated_at_ms as number) + 1 }]);

      readState = (await server.request('thread/readState/update', { threadId: thread.id, operation: { type: 'read' }, expectedRevision: readState.revision })).readState;
      expect((await eventually((r) => r.thread_read_receipts[0]?.revision === readState.revision)).thread_read_receipts).toEqual([receipt()]);

      // Unloaded, the queue is not run: it stays as it is changed.
      const closed = server.waitForNotification('thread/closed', (p) => p.threadId === thread.id, 20_000);
      await server.request('thread/unsubscribe', { threadId: thread.id });
      await closed;
      const add = async (input: unknown[], client: string, metadata: Record<string, string> | null) =>
        (await server.request('thread/queue/add', { threadId: thread.id, input, clientUserMessageId: client, responsesapiClientMetadata: metadata })).queuedSubmission.id as string;
      const a = await add([text('A')], 'client-a', { origin: 'a' });
      const image = { type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' };
      const b = await add([{ type: 'text', text: 'B $x', text_elements: [{ byteRange: { start: 2, end: 4 }, placeholder: '$x' }] }, image], 'client-b', null);
      const rowOf = (id: string, order: number, json: string, updatedAfterCreated = false) => ({ id, thread_id: thread.id, payload_json: json, queue_order: order, updatedAfterCreated });
      const bJson = payload([{ type: 'text', text: 'B $x', text_elements: [{ byte_range: { start: 2, end: 4 }, placeholder: '$x' }] }, { type: 'image', image_url: image.url }], 'client-b');
      expect(queued(await eventually((r) => r.queued_items.length === 2))).toEqual([
        rowOf(a, 0, payload([text('A')], 'client-a', { origin: 'a' })),
        rowOf(b, 1, bJson),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await server.request('thread/queue/update', { threadId: thread.id, queuedSubmissionId: a, input: [text('A2')], responsesapiClientMetadata: null });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await server.request('thread/queue/reorder', { threadId: thread.id, queuedSubmissionIds: [b, a] });
      expect(queued(await eventually((r) => r.queued_items[0]?.id === b))).toEqual([
        rowOf(b, 2, bJson, true),
        rowOf(a, 3, payload([text('A2')], 'client-a', { origin: 'a' }), true),
      ]);
      expect(rows().queued_thread_revisions).toEqual([{ revision: 5, thread_id: thread.id }]);
      await server.request('thread/queue/delete', { threadId: thread.id, queuedSubmissionId: b });
      expect((await eventually((r) => r.queued_items.length === 1)).queued_items.map((r) => r.id)).toEqual([a]);

      await server.request('thread/delete', { threadId: thread.id });
      expect(await eventually((r) => r.threads.length === 0 && r.queued_items.length === 0 && r.thread_read_receipts.length === 0)).toEqual({
        threads: [],
        thread_read_receipts: [],
        queued_items: [],
        queued_thread_revisions: [{ revision: 7, thread_id: thread.id }],
      });
    } finally {
      await server.close();
    }
    expect(server.logLines().filter((line) => String(line.msg).includes('mirror'))).toEqual([]);
  }, 60_000);

  test('in a home without the reference\'s databases, creates none and says why once per database', async () => {
    rmSync(databases.state);
    rmSync(databases.queue);
    const server = await TestServer.start({ home, modelUrl: mock.url, env: { THREAD_HOST_LOG: 'info' } });
    try {
      const { thread } = await server.request('thread/start', {});
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: [text('one')] });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
      for (const name of ['first', 'second']) await server.request('thread/name/set', { threadId: thread.id, name });
      for (const words of ['A', 'B']) await server.request('thread/queue/add', { threadId: thread.id, input: [text(words)], clientUserMessageId: words, responsesapiClientMetadata: null });
      const notices = () => server.logLines().filter((line) => line.msg === 'not mirroring into the reference database');
      const until = Date.now() + 5_000;
      while (notices().length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const reason = 'the database does not exist (the reference creates it)';
      expect(notices().map(({ database, threadId, reason: why }) => ({ database, threadId, why }))).toEqual([
        { database: databases.state, threadId: thread.id, why: reason },
        { database: databases.queue, threadId: thread.id, why: reason },
      ]);
    } finally {
      await server.close();
    }
    expect([databases.state, databases.queue].map(existsSync)).toEqual([false, false]);
  }, 60_000);

  test.each([
    ['codex_history_projection = false', 'codex_history_projection = false'],
    ['a lockfile home', 'writer_lock_backend = "lockfile"'],
  ])('leaves both databases byte for byte as they were with %s', async (_case, rootConfig) => {
    const files = [databases.state, databases.queue].flatMap((path) => [path, `${path}-wal`, `${path}-shm`]);
    const bytes = () => files.map((path) => (existsSync(path) ? readFileSync(path) : null));
    const before = bytes();
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig });
    try {
      const { thread } = await server.request('thread/start', {});
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: [text('one')] });
      await server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000);
      await server.request('thread/name/set', { threadId: thread.id, name: 'Renamed' });
      const { readState } = await server.request('thread/read', { threadId: thread.id });
      await server.request('thread/readState/update', { threadId: thread.id, operation: { type: 'read' }, expectedRevision: readState.revision });
      await server.request('thread/queue/add', { threadId: thread.id, input: [text('A')], clientUserMessageId: 'c', responsesapiClientMetadata: null });
      await server.request('thread/delete', { threadId: thread.id });
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await server.close();
    }
    expect(bytes()).toEqual(before);
  }, 60_000);
});
