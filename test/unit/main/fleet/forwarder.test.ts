// The forwarder against owners played by WebSocket servers in this process: the answer reaches
// the client with its id mapped and its result's bytes as the owner wrote them; the client's
// initialize is replayed with a fleet token; a former owner's hint is followed at most twice;
// a silent owner costs its request its deadline and holds up nothing else.
import { ServerRequests } from '../../../../src/main/server-requests/server-requests.js';
import { systemClock } from '../../../../src/common/clock.js';
import { jwtVerify } from 'jose';
import { WebSocketServer, type WebSocket } from 'ws';
import { afterEach, expect, test } from 'vitest';
import { RpcError } from '../../../../src/common/errors.js';
import { ConnectionTable, type Connection } from '../../../../src/main/connections.js';
import { Forwarder } from '../../../../src/main/fleet/forwarder.js';
import { Outgoing } from '../../../../src/main/outgoing.js';

const SECRET = Buffer.from('fleet-secret-0123456789abcdef-0123456789');
const servers: WebSocketServer[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    for (const socket of server.clients) socket.terminate();
    server.close();
  }
});

interface FakeOwner {
  url: string;
  /** Every message the owner received, parsed, in order. */
  received: Array<Record<string, unknown>>;
  /** The Authorization header of each link opened to it. */
  tokens: string[];
}

/** An owner that answers initialize, then each request with `answer(request)` (null: never answers). */
async function fakeOwner(answer: (request: Record<string, unknown>) => string | null): Promise<FakeOwner> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const owner: FakeOwner = { url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`, received: [], tokens: [] };
  server.on('connection', (socket: WebSocket, request) => {
    owner.tokens.push(request.headers.authorization ?? '');
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      owner.received.push(message);
      if (message.id === undefined) return;
      const text = message.method === 'initialize' ? `{"id":${String(message.id)},"result":{"userAgent":"owner"}}` : answer(message);
      if (text !== null) socket.send(text.replace('$ID', String(message.id)));
    });
  });
  return owner;
}

const hintTo = (endpoint: string) => `{"error":{"code":-32600,"message":"thread t1 already has an active writer","data":{"reason":"ownedElsewhere","ownerEndpoint":"${endpoint}"}},"id":$ID}`;

function client(): { connection: Connection; sent: string[]; outgoing: Outgoing } {
  const table = new ConnectionTable();
  const sent: string[] = [];
  const connection = table.open((message) => sent.push(String(message)) > 0);
  connection.initialized = true;
  connection.initializeParams = { clientInfo: { name: 'far-client', title: null, version: '1.0' }, capabilities: { experimentalApi: true } };
  return { connection, sent, outgoing: new Outgoing(table) };
}

function forwarder(outgoing: Outgoing, otherOwner: (threadId: string) => Promise<string | null>, forwardDeadlineMs?: number): Forwarder {
  const serverRequests = new ServerRequests({ connections: new ConnectionTable(), log: () => undefined, clock: systemClock, graceMs: 1_000 });
  return new Forwarder({ secret: SECRET, hostId: () => 'host-b', otherOwner, outgoing, serverRequests, log: () => undefined, ...(forwardDeadlineMs === undefined ? {} : { forwardDeadlineMs }) });
}

const turnStart = { threadId: 't1', input: [{ type: 'text', text: 'hi' }] };

test('the owner’s answer reaches the client with its id and bytes; the link replays initialize with a fleet token', async () => {
  const owner = await fakeOwner(() => '{"id":$ID,"result":{"turn":{"id":"u1", "status":"inProgress"}}}');
  const { connection, sent, outgoing } = client();
  await forwarder(outgoing, async () => null).forward(connection, 'req-7', 'turn/start', turnStart, 't1', owner.url);
  expect(sent).toEqual(['{"id":"req-7","result":{"turn":{"id":"u1", "status":"inProgress"}}}']);
  expect(owner.received).toEqual([
    { id: 0, method: 'initialize', params: connection.initializeParams },
    { method: 'initialized' },
    { id: 1, method: 'turn/start', params: turnStart },
  ]);
  const { payload } = await jwtVerify(owner.tokens[0]!.replace(/^Bearer /, ''), SECRET, { issuer: 'thread-host-fleet', audience: 'thread-host-fleet' });
  expect(payload.sub).toBe('host-b');
});

test('a former owner’s hint is followed to the owner the store names now', async () => {
  const current = await fakeOwner(() => '{"id":$ID,"result":{}}');
  const former = await fakeOwner(() => hintTo(current.url));
  const { connection, sent, outgoing } = client();
  const lookups: string[] = [];
  const owners = forwarder(outgoing, async (threadId) => (lookups.push(threadId), current.url));
  await owners.forward(connection, 3, 'turn/interrupt', { threadId: 't1', turnId: 'u1' }, 't1', former.url);
  expect([sent, lookups, owners.routeOf(connection, 't1')]).toEqual([['{"id":3,"result":{}}'], ['t1'], current.url]);
});

test('hints are followed at most twice; then the client is told which host named which', async () => {
  const owners = await Promise.all([0, 1, 2].map(() => fakeOwner(() => hintTo('ws://127.0.0.1:1'))));
  const { connection, sent, outgoing } = client();
  let next = 1;
  const routing = forwarder(outgoing, async () => owners[next++]!.url);
  const error = await routing.forward(connection, 1, 'turn/start', turnStart, 't1', owners[0]!.url).catch((e: unknown) => e);
  expect(error).toEqual(new RpcError(-32600, `turn/start for thread t1: the host at ${owners[2]!.url} no longer owns it (it names ws://127.0.0.1:1), after 2 retries`));
  expect([sent, owners.map((owner) => owner.received.filter((m) => m.method === 'turn/start').length)]).toEqual([[], [1, 1, 1]]);
});

test('an owner that never answers costs its request the deadline, and holds up no other request of the client', async () => {
  const silent = await fakeOwner(() => null);
  const prompt = await fakeOwner(() => '{"id":$ID,"result":{"status":"unsubscribed"}}');
  const { connection, sent, outgoing } = client();
  const routing = forwarder(outgoing, async () => null, 300);
  const slow = routing.forward(connection, 1, 'turn/start', turnStart, 't1', silent.url).catch((e: unknown) => e);
  await routing.forward(connection, 2, 'thread/unsubscribe', { threadId: 't2' }, 't2', prompt.url);
  expect(sent).toEqual(['{"id":2,"result":{"status":"unsubscribed"}}']);
  expect(await slow).toEqual(new RpcError(-32603, `turn/start for thread t1: its owner, the host at ${silent.url}, could not be reached: it did not answer turn/start within 300 ms`));
});

test('a link that drops closes the threads subscribed through it, and its waiting requests fail naming the owner', async () => {
  let drop = (): void => undefined;
  const owner = await fakeOwner((request) => {
    if (request.method === 'thread/resume') return '{"id":$ID,"result":{"thread":{"id":"t1"}}}';
    drop();
    return null;
  });
  const server = servers.at(-1)!;
  drop = () => server.clients.forEach((socket) => socket.terminate());
  const { connection, sent, outgoing } = client();
  const routing = forwarder(outgoing, async () => null);
  await routing.forward(connection, 1, 'thread/resume', { threadId: 't1' }, 't1', owner.url);
  const error = await routing.forward(connection, 2, 'turn/start', turnStart, 't1', owner.url).catch((e: unknown) => e);
  expect(error).toEqual(new RpcError(-32603, `turn/start for thread t1: its owner, the host at ${owner.url}, could not be reached: the link was lost (the owner closed it (1006))`));
  expect(sent.map((message) => JSON.parse(message) as unknown)).toEqual([
    { id: 1, result: { thread: { id: 't1' } } },
    { method: 'thread/closed', params: { threadId: 't1' }, emittedAtMs: expect.any(Number) },
  ]);
  expect(routing.routeOf(connection, 't1')).toBe(null);
});

test('the client connection closing closes its links, and a forward after it opens none', async () => {
  const owner = await fakeOwner(() => '{"id":$ID,"result":{}}');
  const server = servers.at(-1)!;
  const { connection, outgoing } = client();
  const routing = forwarder(outgoing, async () => null);
  await routing.forward(connection, 1, 'turn/interrupt', { threadId: 't1', turnId: 'u1' }, 't1', owner.url);
  expect(server.clients.size).toBe(1);
  routing.connectionClosed(connection);
  await expect.poll(() => server.clients.size).toBe(0);
  const error = await routing.forward(connection, 2, 'turn/interrupt', { threadId: 't1', turnId: 'u1' }, 't1', owner.url).catch((e: unknown) => e);
  expect(error).toEqual(new RpcError(-32603, `turn/interrupt for thread t1: its owner, the host at ${owner.url}, could not be reached: its client connection closed`));
  expect(owner.tokens).toHaveLength(1);
});
