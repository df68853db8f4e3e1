// Per-connection limits (config.toml `max_line_bytes`, `max_in_flight_requests`,
// `max_outbound_bytes`): past each one the client gets the reference's overload error or a
// clean disconnect, and the host's memory stays bounded.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

const OVERLOADED = { code: -32001, message: 'Server overloaded; retry later.' };
const UNKNOWN = '01a23644-4410-7392-9ce9-3a08921e3af1';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

/** Replies (not notifications) received after `from`. */
const repliesSince = (server: TestServer, from: number): Message[] => server.received.slice(from).filter((m) => !('method' in m));

test('a line past max_line_bytes is answered -32001 when its head shows a request, dropped otherwise, and the connection keeps serving', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'max_line_bytes = 1024\n' });
  const from = server.received.length;
  const pad = 'x'.repeat(2_000);
  const atLimit = `{"id":"at-limit","method":"thread/loaded/list","params":{"pad":"${'y'.repeat(1024 - 67)}"}}`;
  expect(Buffer.byteLength(atLimit)).toBe(1024);
  server.sendText(`{"id":"big","method":"thread/loaded/list","params":{"pad":"${pad}"}}`);
  server.sendText(`{"method":"thread/loaded/list","params":{"pad":"${pad}"},"id":"id-after-params"}`);
  server.sendText(`{"method":"initialized","params":{"pad":"${pad}"}}`);
  server.sendText(pad);
  server.sendText(atLimit);
  await server.waitFor((m) => m.id === 'at-limit');
  expect(repliesSince(server, from)).toEqual([
    { error: OVERLOADED, id: 'big' },
    { id: 'at-limit', result: { data: [], nextCursor: null } },
  ]);
  expect(await server.close()).toBe(0);
});

test('a line of more than a million JSON values is answered -32001 like an oversized line, and the connection keeps serving', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const from = server.received.length;
  server.sendText(`{"id":"many","method":"thread/loaded/list","params":{"x":[${'0,'.repeat(1_000_000)}0]}}`);
  const after = await server.requestRaw('thread/loaded/list', {});
  expect(repliesSince(server, from)).toEqual([{ error: OVERLOADED, id: 'many' }, after]);
  expect(await server.close()).toBe(0);
});

test('requests past max_in_flight_requests get -32001 until the ones in flight settle', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'max_in_flight_requests = 2\n' });
  const from = server.received.length;
  // One write, so the server handles all six before any of them (they read the disk) settles.
  const ids = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
  server.child.stdin.write(ids.map((id) => `${JSON.stringify({ id, method: 'thread/read', params: { threadId: UNKNOWN } })}\n`).join(''));
  for (const id of ids) await server.waitFor((m) => m.id === id);
  const notLoaded = { code: -32600, message: `thread not loaded: ${UNKNOWN}` };
  const byId = Object.fromEntries(repliesSince(server, from).map((m) => [m.id, m.error]));
  expect(byId).toEqual({ r1: notLoaded, r2: notLoaded, r3: OVERLOADED, r4: OVERLOADED, r5: OVERLOADED, r6: OVERLOADED });
  expect((await server.requestRaw('thread/read', { threadId: UNKNOWN })).error).toEqual(notLoaded);
  expect(await server.close()).toBe(0);
});

test('a limit of zero is a configuration error: a -c override stops the process with exit code 1', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, args: ['-c', 'max_in_flight_requests=0'], initialize: false });
  expect(await server.exited).toBe(1);
  expect(server.stderr).toContain('max_in_flight_requests: invalid value: integer `0`, expected a positive integer');
  await server.close();
});

/** The resident set of a process in bytes, or null once it has exited. */
function rssOf(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

test('a client that stops reading is disconnected once max_outbound_bytes is queued, and the host stays bounded meanwhile', async () => {
  const server = await TestServer.start({
    modelUrl: mock.url,
    rootConfig: 'max_outbound_bytes = 1048576\n',
    env: { THREAD_HOST_LOG: 'info' },
  });
  server.child.stdin.on('error', () => undefined); // the server may be gone before our last write
  // One thread per turn: a turn/start on a thread whose turn is in progress joins that turn
  // (as the reference does), so twenty turns on one thread would be one.
  const turns = 20;
  const threads: string[] = [];
  for (let i = 0; i < turns; i += 1) threads.push((await server.request('thread/start', {})).thread.id);
  const pid = server.child.pid!;
  const baseline = rssOf(pid)!;
  // Each turn streams ~2 000 deltas and its 100 KB text twice: far more than 1 MiB in all.
  for (let i = 0; i < turns; i += 1) mock.enqueue({ kind: 'reply', text: 'word '.repeat(20_000), deltaChunks: 2_000 });
  server.child.stdout.pause();
  for (let i = 0; i < turns; i += 1) server.sendText(JSON.stringify({ id: `flood-${i}`, method: 'turn/start', params: { threadId: threads[i], input: [{ type: 'text', text: `flood ${i}` }] } }));

  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid) ?? 0)), 20);
  const deadline = setTimeout(() => server.child.kill('SIGKILL'), 30_000);
  const code = await server.exited;
  clearInterval(sampler);
  clearTimeout(deadline);
  console.log(`slow reader: baseline RSS ${(baseline / 2 ** 20).toFixed(1)} MiB, peak ${(peak / 2 ** 20).toFixed(1)} MiB`);
  expect(code).toBe(0);
  expect(server.stderr).toContain('"why":"stdio outboundOverflow"');
  // Bounded: 1 MiB of queued output plus the turns in flight, nowhere near the ~8 MB the
  // twenty turns would have written, let alone growth without bound.
  expect(peak - baseline).toBeLessThan(96 * 2 ** 20);
  await server.close();
}, 60_000);
