// What clients change of a thread besides its name, shared by the hosts of one PostgreSQL
// store: read states (thread/readState/update, moved by turn ends), metadata
// (thread/metadata/update), queued input (thread/queue/*) and reverts. A change made through
// host A is what host B reads, lists, checks a revision against or runs. (The reference's
// answers on one host are replayed by the read-state, metadata, queue, fork and revert suites,
// on both stores.)
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { startedThread } from '../helpers/recorded-thread-changes.js';
import { conversationOf } from '../helpers/reference-lines.js';
import { TestServer, type Message } from '../helpers/test-server.js';
import { testDatabase } from '../helpers/test-database.js';
import { postgresLines } from '../helpers/thread-stores.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(() => mock.close());

const startHost = (db: PostgresConnection): Promise<TestServer> => TestServer.start({ modelUrl: mock.url, rootConfig: [...postgresLines(db), 'thread_unload_delay_secs = 0'].join('\n') });

const readStateOf = async (server: TestServer, threadId: string) => (await server.request('thread/read', { threadId })).readState;
const listedReadState = async (server: TestServer, threadId: string) => (await server.request('thread/list', {})).readStates[threadId];
const mark = (server: TestServer, threadId: string, type: 'read' | 'unread', expectedRevision: string) =>
  server.requestRaw('thread/readState/update', { threadId, operation: { type }, expectedRevision });

async function unloaded(server: TestServer, threadId: string): Promise<void> {
  await server.request('thread/unsubscribe', { threadId });
  await server.waitForNotification('thread/closed', (p: Message) => p.threadId === threadId);
}

test('a read state set through one host is what every host reads, lists and checks revisions against', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'on A');
    const [turn] = (await a.request('thread/read', { threadId, includeTurns: true })).thread.turns as Message[];
    const afterTurn = await readStateOf(a, threadId);
    expect(afterTurn.firstUnread).toEqual({ type: 'turn', turnId: turn!.id });
    await unloaded(a, threadId);
    expect([await readStateOf(b, threadId), await listedReadState(b, threadId)]).toEqual([afterTurn, afterTurn]);

    // B marks it read; A, which no longer has it loaded, reads and lists B's state.
    const markedOnB = await mark(b, threadId, 'read', afterTurn.revision);
    const readOnB = markedOnB.result.readState;
    expect(readOnB.firstUnread).toBeNull();
    expect([await readStateOf(a, threadId), await listedReadState(a, threadId)]).toEqual([readOnB, readOnB]);
    // A revision B's mark replaced is refused through A too, with the store's state.
    expect((await mark(a, threadId, 'unread', afterTurn.revision)).error).toEqual({
      code: -32600,
      message: 'read state changed',
      data: { reason: 'readStateConflict', readState: readOnB },
    });

    // Two hosts marking at one revision: exactly one applies, and both then read the winner's state.
    const raced = await Promise.all([mark(a, threadId, 'unread', readOnB.revision), mark(b, threadId, 'unread', readOnB.revision)]);
    const won = raced.filter((reply) => reply.error === undefined);
    expect([won.length, raced.filter((reply) => reply.error?.data?.reason === 'readStateConflict').length]).toEqual([1, 1]);
    const winner = won[0]!.result.readState;
    expect(winner.firstUnread).toEqual({ type: 'threadStart' });
    expect([await readStateOf(a, threadId), await readStateOf(b, threadId)]).toEqual([winner, winner]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a thread loaded on A and marked through B: A learns it from its listing, and its next turn starts from it', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'one');
    const first = await readStateOf(b, threadId);
    const markedOnB = (await mark(b, threadId, 'read', first.revision)).result.readState;
    // A still has it loaded: its read answers from memory until a lookup (its listing) teaches it.
    expect(await listedReadState(a, threadId)).toEqual(markedOnB);
    expect(await readStateOf(a, threadId)).toEqual(markedOnB);
    const { turn } = await a.request('turn/start', { threadId, input: [{ type: 'text', text: 'two' }] });
    const changed = await a.waitForNotification('thread/readState/changed', (p: Message) => p.readState.firstUnread?.turnId === turn.id);
    await a.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    // The turn's end is in the store by the time A is idle again; B reads it.
    await unloaded(a, threadId);
    expect(await readStateOf(b, threadId)).toEqual(changed.readState);
    expect(changed.readState).toEqual({ firstUnread: { type: 'turn', turnId: turn.id }, revision: changed.readState.revision });
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('metadata patched through one host is what every host reads and lists, patches applying field by field', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'on A');
    await unloaded(a, threadId);
    const shown = (thread: Message) => ({ gitInfo: thread.gitInfo, daybreakEnabled: thread.daybreakEnabled });
    const listed = async (server: TestServer) => (await server.request('thread/list', {})).data.map(shown);
    const read = async (server: TestServer) => shown((await server.request('thread/read', { threadId })).thread);

    expect(shown((await a.request('thread/metadata/update', { threadId, gitInfo: { sha: 'abc', branch: 'main' } })).thread)).toEqual({
      gitInfo: { sha: 'abc', branch: 'main', originUrl: null },
      daybreakEnabled: null,
    });
    // B patches what A set without having seen it: A's fields stay.
    expect(shown((await b.request('thread/metadata/update', { threadId, gitInfo: { branch: null, originUrl: 'git@x:y' }, daybreakEnabled: true })).thread)).toEqual({
      gitInfo: { sha: 'abc', branch: null, originUrl: 'git@x:y' },
      daybreakEnabled: true,
    });
    const both = { gitInfo: { sha: 'abc', branch: null, originUrl: 'git@x:y' }, daybreakEnabled: true };
    expect([await read(a), await listed(a), await read(b), await listed(b)]).toEqual([both, [both], both, [both]]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

const text = (value: string) => [{ type: 'text', text: value }];
const userTurnOf = (server: TestServer, clientId: string) =>
  server.waitForNotification('item/completed', (p: Message) => p.item.type === 'userMessage' && p.item.clientId === clientId, 20_000);

test('input queued through B for a thread loaded on A runs on A, in order, and A\'s subscribers hear of each change', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'one');
    // Idle on A: input queued through B runs on A at once.
    await b.request('thread/queue/add', { threadId, clientUserMessageId: 'b-now', input: text('from B, idle') });
    const ranNow = await userTurnOf(a, 'b-now');
    await a.waitForNotification('turn/completed', (p: Message) => p.turn.id === ranNow.turnId);
    expect(ranNow.item.content).toEqual([{ type: 'text', text: 'from B, idle', text_elements: [] }]);

    // Busy on A: input queued through both hosts waits, in the order queued, and runs after the turn.
    mock.enqueue({ kind: 'stall', ms: 1_500 });
    const { turn: slow } = await a.request('turn/start', { threadId, input: text('SLOW') });
    await a.waitForNotification('turn/started', (p: Message) => p.turn.id === slow.id);
    const first = (await b.request('thread/queue/add', { threadId, clientUserMessageId: 'b-1', input: text('first, from B') })).queuedSubmission;
    const second = (await a.request('thread/queue/add', { threadId, clientUserMessageId: 'a-2', input: text('second, from A') })).queuedSubmission;
    expect([await a.request('thread/queue/list', { threadId }), await b.request('thread/queue/list', { threadId })]).toEqual([
      { data: [first, second], nextCursor: null },
      { data: [first, second], nextCursor: null },
    ]);
    const ranFirst = await userTurnOf(a, 'b-1');
    expect(ranFirst.turnId).not.toBe(slow.id);
    const ranSecond = await userTurnOf(a, 'a-2');
    await a.waitForNotification('turn/completed', (p: Message) => p.turn.id === ranSecond.turnId);
    expect(await b.request('thread/queue/list', { threadId })).toEqual({ data: [], nextCursor: null });
    // A's subscriber heard of every change: B's adds and A's own, and each run taking one off.
    expect(a.notifications('thread/queue/changed').length).toBe(6);
    expect(b.notifications('thread/queue/changed')).toEqual([]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('changes to one queue made through two hosts at once all apply', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'one');
    await unloaded(a, threadId);
    const adds = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).request('thread/queue/add', { threadId, clientUserMessageId: `c-${i}`, input: text(`input ${i}`) })),
    );
    const listed = (await b.request('thread/queue/list', { threadId })).data as Message[];
    expect(listed.map((submission) => submission.id).sort()).toEqual(adds.map((added) => added.queuedSubmission.id).sort());
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a thread reverted on A reads, lists and resumes on B with only the turns it kept', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  try {
    const threadId = await startedThread(a, 'one');
    const { turn: dropped } = await a.request('turn/start', { threadId, input: text('two') });
    await a.waitForNotification('turn/completed', (p: Message) => p.turn.id === dropped.id);
    const [kept] = (await a.request('thread/read', { threadId, includeTurns: true })).thread.turns as Message[];
    expect((await a.request('thread/revert', { threadId, beforeTurnId: dropped.id })).thread.turns).toEqual([]);
    const read = (await b.request('thread/read', { threadId, includeTurns: true })).thread;
    expect([read.turns, read.preview, (await b.request('thread/list', {})).data.map((t: Message) => [t.id, t.preview])]).toEqual([[kept], 'one', [[threadId, 'one']]]);
    await unloaded(a, threadId);
    expect((await b.request('thread/resume', { threadId })).thread.turns).toEqual([kept]);
    const sampled = mock.requests.length;
    const { turn } = await b.request('turn/start', { threadId, input: text('three') });
    await b.waitForNotification('turn/completed', (p: Message) => p.turn.id === turn.id);
    expect(mock.requests.slice(sampled).map((request) => conversationOf((request.body as Message).input))).toEqual([[['user', 'one'], ['assistant', 'Done'], ['user', 'three']]]);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
