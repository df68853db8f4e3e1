// thread/queue/* as codex-cli 0.171.0 answers them on the same requests
// (test/fixtures/reference-answers/queue.jsonl): queued input runs in order, one turn each,
// when the thread has no turn in progress; the answers and errors are the reference's. The
// queue is thread-host's own durable copy (thread-queues/<id>.json, or the PostgreSQL store's
// thread_queues table), never read from the reference's queue_1.sqlite (which a files home
// mirrors it into: codex-state-mirror.test.ts): it survives an unload and a restart, and runs
// when the thread is resumed. Both tests run on either thread store.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { normalizedLines } from '../helpers/reference-lines.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { rootConfigOn, storeDatabase, storeRootConfig, THREAD_STORES } from '../helpers/thread-stores.js';

const reference = readFileSync(new URL('../fixtures/reference-answers/queue.jsonl', import.meta.url), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Message);
const text = (value: string) => [{ type: 'text', text: value }];

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

/** The queue as the store keeps it: the thread's file in the home, or its row in the database. */
async function savedQueue(home: string, db: PostgresConnection | null, threadId: string): Promise<unknown> {
  if (db === null) return JSON.parse(readFileSync(join(home, 'thread-queues', `${threadId}.json`), 'utf8'));
  const client = new pg.Client({ connectionString: db.url! });
  await client.connect();
  try {
    const rows = (await client.query<{ submissions: unknown }>('SELECT submissions FROM thread_queues WHERE thread_id = $1', [threadId])).rows;
    return { threadId, queue: rows[0]?.submissions };
  } finally {
    await client.end();
  }
}

describe.each(THREAD_STORES)('%s store', (store) => {

  test('the queue answers as the reference does and runs its input in order', async () => {
    const server = await TestServer.start({ modelUrl: mock.url, rootConfig: await storeRootConfig(store) });
    const { thread } = await server.request('thread/start', {});
    const t = thread.id as string;
    const lines: Message[] = [];
    const ask = async (method: string, params: Message) => {
      const reply = await server.requestRaw(method, params);
      lines.push({ method, params, answer: reply.error ? { error: reply.error } : { result: reply.result } });
      return reply.result;
    };
    const turnOf = (clientId: string) =>
      server.waitForNotification('item/completed', (p: Message) => p.item.type === 'userMessage' && p.item.clientId === clientId);

    await ask('thread/queue/list', { threadId: t });
    await ask('thread/queue/add', { threadId: t, clientUserMessageId: 'c-a', input: text('queued A') });
    // Added to an idle thread, it runs at once, as a turn whose user item carries its client id.
    const a = await turnOf('c-a');
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === a.turnId);
    await ask('thread/queue/list', { threadId: t });

    mock.enqueue({ kind: 'stall', ms: 1_500 });
    const { turn: slow } = await server.request('turn/start', { threadId: t, input: text('SLOW') });
    await server.waitForNotification('turn/started', (p: Message) => p.turn.id === slow.id);
    const b = (await ask('thread/queue/add', { threadId: t, clientUserMessageId: 'c-b', input: text('queued B'), responsesapiClientMetadata: { k: 'v' } })).queuedSubmission.id;
    const c = (await ask('thread/queue/add', { threadId: t, clientUserMessageId: 'c-c', input: text('queued C') })).queuedSubmission.id;
    await ask('thread/queue/list', { threadId: t, limit: 1 });
    await ask('thread/queue/update', { threadId: t, queuedSubmissionId: b, input: text('queued B2') });
    await ask('thread/queue/reorder', { threadId: t, queuedSubmissionIds: [c, b] });
    await ask('thread/queue/reorder', { threadId: t, queuedSubmissionIds: [c] });
    await ask('thread/queue/list', { threadId: t });
    await ask('thread/queue/delete', { threadId: t, queuedSubmissionId: c });
    await ask('thread/queue/delete', { threadId: t, queuedSubmissionId: c });
    await ask('thread/queue/update', { threadId: t, queuedSubmissionId: c, input: text('x') });
    await ask('thread/queue/start', { threadId: t, queuedSubmissionId: b });
    // The running turn ends; the queued input runs next, as its own turn.
    const queued = await turnOf('c-b');
    expect(queued.item.content).toEqual([{ type: 'text', text: 'queued B2', text_elements: [] }]);
    expect(queued.turnId).not.toBe(slow.id);
    await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === queued.turnId);
    await ask('thread/queue/list', { threadId: t });
    await ask('thread/queue/start', { threadId: t });
    await ask('thread/queue/start', { threadId: t, queuedSubmissionId: '00000000-0000-0000-0000-000000000009' });
    await ask('thread/queue/add', { threadId: t, clientUserMessageId: 'c-d', input: [] });
    await ask('thread/queue/add', { threadId: '00000000-0000-0000-0000-000000000000', clientUserMessageId: 'c-e', input: text('x') });
    await ask('thread/queue/list', { threadId: '00000000-0000-0000-0000-000000000000' });
    await ask('thread/queue/list', { threadId: 'nope' });

    // The recorder numbered ids over answers and notifications; numbered again over the answers alone.
    const answers = reference
      .filter((line) => line.notification === undefined)
      .map((line) => JSON.parse(JSON.stringify(line).replace(/<id-(\d+)>/g, (_, n: string) => `00000000-0000-7000-8000-${n.padStart(12, '0')}`)) as Message);
    expect(normalizedLines(lines, t)).toEqual(normalizedLines(answers, '<thread>'));
    // Every change was announced to the subscriber: the adds of A, B and C, A's and B2's starts,
    // the update, the reorder and the delete. (The reference sent one more after the last
    // request, on no change of the queue.)
    expect(server.notifications('thread/queue/changed').map((n) => n.params)).toEqual(Array.from({ length: 8 }, () => ({ threadId: t })));
    expect(await server.close()).toBe(0);
  });

  test('queued input survives an unload and a restart, and runs when the thread is resumed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'thread-host-queue-'));
    try {
      const db = await storeDatabase(store);
      const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: rootConfigOn(db, 'thread_unload_delay_secs = 0') });
      const { thread } = await server.request('thread/start', {});
      const { turn } = await server.request('turn/start', { threadId: thread.id, input: text('hello') });
      await server.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
      await server.request('thread/unsubscribe', { threadId: thread.id });
      await server.waitForNotification('thread/closed', (p: Message) => p.threadId === thread.id);
      // Stored, not loaded: the input waits.
      const { queuedSubmission } = await server.request('thread/queue/add', { threadId: thread.id, clientUserMessageId: 'later', input: text('while away') });
      expect(await server.close()).toBe(0);

      expect(await savedQueue(home, db, thread.id)).toEqual({ threadId: thread.id, queue: [queuedSubmission] });
      expect(existsSync(join(home, 'queue_1.sqlite'))).toBe(false);

      const restarted = await TestServer.start({ home, keepConfig: true, modelUrl: mock.url });
      expect(await restarted.request('thread/queue/list', { threadId: thread.id })).toEqual({ data: [queuedSubmission], nextCursor: null });
      await restarted.request('thread/resume', { threadId: thread.id });
      const item = await restarted.waitForNotification('item/completed', (p: Message) => p.item.type === 'userMessage' && p.item.clientId === 'later');
      expect(item.item.content).toEqual([{ type: 'text', text: 'while away', text_elements: [] }]);
      await restarted.waitForNotification('turn/completed', (p: Message) => p.turn.id === item.turnId);
      expect(await restarted.request('thread/queue/list', { threadId: thread.id })).toEqual({ data: [], nextCursor: null });
      expect(await savedQueue(home, db, thread.id)).toEqual({ threadId: thread.id, queue: [] });
      expect(await restarted.close()).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
