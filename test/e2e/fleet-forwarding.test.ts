// Any host serves any thread: hosts on one PostgreSQL store, each listening on ws://127.0.0.1:0
// with a fleet secret. A client of B asks for a thread A owns and B forwards it over a peer
// link (the fleet token, the client's own initialize replayed): the client gets A's answers and
// every notification A's own client gets, byte for byte; an owner that dies closes the threads
// for the client, which resumes on B once the lease lapsed; a wrong token is refused; what a
// peer asks is never forwarded again (hop limit 1): it gets the owner as a hint; a revert and the
// start of queued input are the owner's too, as are a rename and the other thread changes a
// client that reaches the thread through B sends; and a host woken
// after its lease lapsed forwards its clients to the new owner.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { functionCallItem, messageItem, startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { testDatabase } from '../helpers/test-database.js';
import { turnMethods } from '../helpers/turn-methods.js';
import { HttpRefusal, RpcReplyError, WsServer, type Message, type WsClient } from '../helpers/ws-server.js';

const LEASE_MS = 2_000;
const RENEW_MS = 500;
const dir = mkdtempSync(join(tmpdir(), 'fleet-forwarding-'));
const SECRET = 'fleet-secret-0123456789abcdef-0123456789';
writeFileSync(join(dir, 'fleet-secret'), `${SECRET}\n`);
writeFileSync(join(dir, 'other-secret'), 'another-fleet-0123456789abcdef-0123456789\n');
writeFileSync(join(dir, 'client-token'), 'client-token-1\n');

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const hostConfig = (db: PostgresConnection, secretFile = 'fleet-secret'): string =>
  [
    `thread_store = "postgres"`,
    `postgres_url = ${JSON.stringify(db.url)}`,
    `fleet_lease_ms = ${LEASE_MS}`,
    `fleet_renew_ms = ${RENEW_MS}`,
    `fleet_secret_file = ${JSON.stringify(join(dir, secretFile))}`,
    `thread_unload_delay_secs = 0`,
  ].join('\n');

const startHost = (db: PostgresConnection, options: { secretFile?: string; args?: string[] } = {}): Promise<WsServer> =>
  WsServer.start({ modelUrl: mock.url, rootConfig: hostConfig(db, options.secretFile), args: options.args ?? [] });

const fleetToken = (secret: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<string> =>
  new SignJWT({ sub: 'test' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('thread-host-fleet')
    .setAudience('thread-host-fleet')
    .setExpirationTime(nowSeconds + 60)
    .sign(Buffer.from(secret));

const textInput = (text: string) => [{ type: 'text', text }];

/** The notifications a client received for `threadId` from `from` on (an index into `received`). */
const threadNotifications = (client: WsClient, threadId: string, from = 0): Message[] =>
  client.received.slice(from).filter((m) => 'method' in m && (m.params as Message | undefined)?.threadId === threadId);

/** The model stalls on the next request; `asked` resolves once it came, so the stall is that turn's and no later one's. */
function stallNextTurn(ms = 20_000): { asked: () => Promise<void> } {
  mock.enqueue({ kind: 'stall', ms });
  const before = mock.requests.length;
  return { asked: () => vi.waitFor(() => expect(mock.requests.length).toBe(before + 1), { timeout: 10_000 }) };
}

async function startedThread(owner: WsClient): Promise<string> {
  const { thread } = await owner.request('thread/start', {});
  const { turn } = await owner.request('turn/start', { threadId: thread.id, input: textInput('first, on the owner') });
  await owner.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  return thread.id as string;
}

test('a client of B runs turns on A’s thread and gets every notification A’s own client gets, in order; steer, interrupt and unsubscribe go to A', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  const onA = await a.connect();
  const onB = await b.connect();
  const threadId = await startedThread(onA);

  // B forwards the resume: the answer is A's, as another client of A gets it.
  const resumedOnB = await onB.request('thread/resume', { threadId });
  const secondOnA = await a.connect();
  const resumedOnA = await secondOnA.request('thread/resume', { threadId });
  expect(resumedOnB).toEqual(resumedOnA);
  // What follows a resume comes from A too; B's own attempt to load the thread, refused by the store, shows nothing.
  await Promise.all([onB, secondOnA].map((client) => client.waitForNotification('thread/goal/cleared')));
  const withoutTimes = (client: WsClient) => client.notifications().map(({ method, params }) => ({ method, params }));
  expect(withoutTimes(onB)).toEqual(withoutTimes(secondOnA));
  expect(withoutTimes(onB).map((m) => m.method)).toEqual(['deprecationNotice', 'thread/tokenUsage/updated', 'thread/goal/cleared']);

  const [fromA, fromB] = [onA.received.length, onB.received.length];
  mock.enqueue({ kind: 'reply', text: 'streamed in three pieces', deltaChunks: 3 });
  const { turn } = await onB.request('turn/start', { threadId, input: textInput('second, from B') });
  await onA.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  await onB.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  const seenOnA = threadNotifications(onA, threadId, fromA);
  expect(seenOnA.map((m) => m.method)).toEqual(turnMethods(3));
  expect(threadNotifications(onB, threadId, fromB)).toEqual(seenOnA);

  // Steered from B while A's model is slow: the input joins A's turn.
  const slow = stallNextTurn(1_000);
  const { turn: steered } = await onA.request('turn/start', { threadId, input: textInput('third, steered from B') });
  await onB.waitForNotification('turn/started', (p) => p.turn.id === steered.id);
  await slow.asked();
  expect(await onB.request('turn/steer', { threadId, input: textInput('steered from B'), expectedTurnId: steered.id })).toEqual({ turnId: steered.id });
  expect((await onA.waitForNotification('turn/completed', (p) => p.turn.id === steered.id)).turn.status).toBe('completed');

  // Interrupted from B while A's model stalls.
  const stall = stallNextTurn();
  const { turn: stalled } = await onA.request('turn/start', { threadId, input: textInput('fourth, interrupted from B') });
  await onB.waitForNotification('turn/started', (p) => p.turn.id === stalled.id);
  await stall.asked();
  expect(await onB.request('turn/interrupt', { threadId, turnId: stalled.id })).toEqual({});
  const interrupted = await onA.waitForNotification('turn/completed', (p) => p.turn.id === stalled.id);
  expect(interrupted.turn.status).toBe('interrupted');
  expect((await onB.waitForNotification('turn/completed', (p) => p.turn.id === stalled.id)).turn.status).toBe('interrupted');

  // Renamed from B: the rename goes to A, whose own client hears it as B's client does.
  expect(await onB.request('thread/name/set', { threadId, name: 'named from B' })).toEqual({});
  const renamed = { threadId, threadName: 'named from B' };
  expect(await onA.waitForNotification('thread/name/updated', (p) => p.threadId === threadId)).toEqual(renamed);
  expect(await onB.waitForNotification('thread/name/updated', (p) => p.threadId === threadId)).toEqual(renamed);

  // Unsubscribed from B: A's next turn reaches A's client only.
  expect(await onB.request('thread/unsubscribe', { threadId })).toEqual({ status: 'unsubscribed' });
  const afterUnsubscribe = onB.received.length;
  const { turn: last } = await onA.request('turn/start', { threadId, input: textInput('fifth, A only') });
  await onA.waitForNotification('turn/completed', (p) => p.turn.id === last.id);
  expect(onB.received.slice(afterUnsubscribe)).toEqual([]);

  // B never took the thread: every turn is in A's history, as both hosts read it.
  const turnsOf = async (client: WsClient) => ((await client.request('thread/read', { threadId, includeTurns: true })).thread.turns as Message[]).map((t) => [t.id, t.status]);
  expect(await turnsOf(onB)).toEqual(await turnsOf(onA));
  expect((await turnsOf(onA)).slice(1)).toEqual([
    [turn.id, 'completed'],
    [steered.id, 'completed'],
    [stalled.id, 'interrupted'],
    [last.id, 'completed'],
  ]);
  await Promise.all([a.stop(), b.stop()]);
});

test('a client of B reverts A’s thread and starts its queued input: both are answered by A', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  const onA = await a.connect();
  const onB = await b.connect();
  const threadId = await startedThread(onA);
  const { turn: dropped } = await onA.request('turn/start', { threadId, input: textInput('second, reverted from B') });
  await onA.waitForNotification('turn/completed', (p) => p.turn.id === dropped.id);

  const reverted = await onB.request('thread/revert', { threadId, beforeTurnId: dropped.id });
  expect((reverted.thread.turns as Message[]).map((t) => t.id)).toEqual([]);
  await onA.waitForNotification('thread/reverted', (p) => p.threadId === threadId);
  const firstTexts = async (client: WsClient) =>
    ((await client.request('thread/read', { threadId, includeTurns: true })).thread.turns as Message[]).map((t) => t.items[0].content[0].text);
  expect(await firstTexts(onA)).toEqual(['first, on the owner']);

  // Starting queued input is the owner's: B's client gets A's answer (an idle thread's queue
  // has run already), not B's own "thread not loaded".
  const refusal = (client: WsClient) => client.request('thread/queue/start', { threadId, queuedSubmissionId: null }).then(() => 'started', (error: RpcReplyError) => [error.code, error.message]);
  expect(await refusal(onB)).toEqual(await refusal(onA));
  expect(await refusal(onA)).toEqual([-32600, 'queue is empty']);
  await Promise.all([a.stop(), b.stop()]);
});

test('the owner killed mid-turn: B’s client gets thread/closed, then resumes the thread on B once the lease lapsed', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  const onA = await a.connect();
  const onB = await b.connect();
  const threadId = await startedThread(onA);
  await onB.request('thread/resume', { threadId });
  const stall = stallNextTurn();
  const { turn } = await onB.request('turn/start', { threadId, input: textInput('cut short') });
  await onB.waitForNotification('turn/started', (p) => p.turn.id === turn.id);
  await stall.asked();

  a.process.child.kill('SIGKILL');
  const killedAt = Date.now();
  expect(await onB.waitForNotification('thread/closed', (p) => p.threadId === threadId)).toEqual({ threadId });

  // While A's lease runs, B names A as the owner it cannot reach; then B takes the thread over.
  let refusals = 0;
  for (;;) {
    const reply = await onB.requestRaw('thread/resume', { threadId });
    if ('result' in reply) break;
    refusals += 1;
    expect(reply.error.message).toMatch(new RegExp(`^thread/resume for thread ${threadId}: its owner, the host at ${a.baseUrl}, could not be reached: `));
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(refusals).toBeGreaterThan(0);
  const { turn: onTheNewOwner } = await onB.request('turn/start', { threadId, input: textInput('on B now') });
  expect((await onB.waitForNotification('turn/completed', (p) => p.turn.id === onTheNewOwner.id)).turn.status).toBe('completed');
  await b.stop();
});

test('a peer link with a wrong token is refused, and a client of a host with another secret is told so', async () => {
  const db = await testDatabase();
  const clientAuth = ['--ws-auth', 'capability-token', '--ws-token-file', join(dir, 'client-token')];
  const a = await startHost(db, { args: clientAuth });
  const b = await startHost(db, { secretFile: 'other-secret' });
  const onA = await a.connect({ headers: { authorization: 'Bearer client-token-1' } });
  const threadId = await startedThread(onA);

  const refusal = await a.connect({ headers: { authorization: `Bearer ${await fleetToken('another-fleet-0123456789abcdef-0123456789')}` } }).catch((error: unknown) => error);
  expect(refusal).toEqual(new HttpRefusal(401, 'invalid websocket bearer token'));
  // The right fleet token passes A's client auth: it is a peer.
  await a.connect({ headers: { authorization: `Bearer ${await fleetToken(SECRET)}` } });

  const onB = await b.connect();
  const error = await onB.request('thread/resume', { threadId }).catch((e: unknown) => e);
  expect(error).toEqual(
    new RpcReplyError(-32603, `thread/resume for thread ${threadId}: its owner, the host at ${a.baseUrl}, could not be reached: it refused the link (HTTP 401: invalid websocket bearer token)`),
  );
  await Promise.all([a.stop(), b.stop()]);
});

test('what a peer asks is never forwarded again: it gets the owner as a hint', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  const onB = await b.connect();
  const threadId = await startedThread(onB);
  const asPeer = await a.connect({ headers: { authorization: `Bearer ${await fleetToken(SECRET)}` } });
  const hint = { reason: 'ownedElsewhere', ownerEndpoint: b.baseUrl };
  expect(await asPeer.requestRaw('thread/resume', { threadId })).toMatchObject({ error: { code: -32600, message: `thread ${threadId} already has an active writer`, data: hint } });
  expect(await asPeer.requestRaw('turn/start', { threadId, input: textInput('not forwarded') })).toMatchObject({ error: { code: -32600, message: `thread not found: ${threadId}`, data: hint } });
  // The same asked by a client of A is forwarded to B.
  const onA = await a.connect();
  const { turn } = await onA.request('turn/start', { threadId, input: textInput('forwarded once') });
  await onB.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
  const turns = (await onB.request('thread/read', { threadId, includeTurns: true })).thread.turns as Message[];
  expect(turns.map((t) => t.id)).toEqual([turns[0]!.id, turn.id]);
  await Promise.all([a.stop(), b.stop()]);
});

test('a host woken after its lease lapsed gives the thread up and forwards its client to the new owner', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  const onA = await a.connect();
  const onB = await b.connect();
  const threadId = await startedThread(onA);

  a.process.child.kill('SIGSTOP');
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + RENEW_MS));
  // A's lease lapsed: B takes the thread over instead of forwarding to a host that cannot answer.
  await onB.request('thread/resume', { threadId });
  a.process.child.kill('SIGCONT');
  expect(await onA.waitForNotification('thread/closed', (p) => p.threadId === threadId, 10_000)).toEqual({ threadId });

  // A's client resumes on A, which forwards to B now: its turn runs on B and both clients see it.
  expect((await onA.request('thread/resume', { threadId })).thread.id).toBe(threadId);
  const { turn } = await onA.request('turn/start', { threadId, input: textInput('from A, run on B') });
  const [onAEnd, onBEnd] = await Promise.all([
    onA.waitForNotification('turn/completed', (p) => p.turn.id === turn.id),
    onB.waitForNotification('turn/completed', (p) => p.turn.id === turn.id),
  ]);
  expect([onAEnd.turn.status, onBEnd]).toEqual(['completed', onAEnd]);
  await Promise.all([a.stop(), b.stop()]);
});

test('a tool call of a thread A owns reaches B’s client through B, and its answer gets back to A’s turn', async () => {
  const db = await testDatabase();
  const [a, b] = await Promise.all([startHost(db), startHost(db)]);
  const onA = await a.connect();
  const onB = await b.connect();
  const schema = { type: 'object', properties: { x: { type: 'string' } } };
  const { thread } = await onA.request('thread/start', { dynamicTools: [{ type: 'function', name: 'lookup', description: 'Looks up', inputSchema: schema }] });
  const { turn: first } = await onA.request('turn/start', { threadId: thread.id, input: textInput('first, on the owner') });
  await onA.waitForNotification('turn/completed', (p) => p.turn.id === first.id);
  await onB.request('thread/resume', { threadId: thread.id });
  // Only B's client is left to answer: A's own client goes.
  expect(await onA.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });

  mock.enqueue({ kind: 'output', items: [functionCallItem('call_far', 'lookup', { x: 'far' })] });
  mock.enqueue({ kind: 'output', items: [messageItem('msg_far', 'Done far')] });
  const before = mock.requests.length;
  const { turn } = await onB.request('turn/start', { threadId: thread.id, input: textInput('call it from B') });
  const asked = await onB.waitFor((m) => m.method === 'item/tool/call' && 'id' in m, 20_000);
  expect(asked).toEqual({
    method: 'item/tool/call',
    id: 0,
    params: { threadId: thread.id, turnId: turn.id, callId: 'call_far', namespace: null, tool: 'lookup', arguments: { x: 'far' } },
  });
  onB.sendText(JSON.stringify({ id: asked.id, result: { contentItems: [{ type: 'inputText', text: 'answered on B' }], success: true } }));
  const done = await onB.waitForNotification('item/completed', (p) => p.item.id === 'call_far', 20_000);
  expect([done.item.status, done.item.contentItems]).toEqual(['completed', [{ type: 'inputText', text: 'answered on B' }]]);
  expect((await onB.waitForNotification('turn/completed', (p) => p.turn.id === turn.id, 20_000)).turn.status).toBe('completed');
  const input = (mock.requests[before + 1]!.body as { input: Message[] }).input;
  expect(input.at(-1)).toEqual({ type: 'function_call_output', id: expect.stringMatching(/^fco_/), call_id: 'call_far', output: 'answered on B' });
  await Promise.all([a.stop(), b.stop()]);
});
