import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { CLI, RpcReplyError, TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const run = (args: string[], env: Record<string, string> = {}) => {
  const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000, input: '' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
};

test('unknown flags and commands exit 2 with a clear message; --help exits 0', () => {
  expect(run(['app-server', '--bogus-flag'])).toEqual({
    status: 2,
    stdout: '',
    stderr: "thread-host: unknown option '--bogus-flag'\nRun 'thread-host --help' for usage.\n",
  });
  expect(run(['frobnicate'])).toEqual({ status: 2, stdout: '', stderr: "thread-host: unknown command 'frobnicate'\nRun 'thread-host --help' for usage.\n" });
  expect(run(['app-server', '--listen', 'tcp://127.0.0.1:1'])).toEqual({
    status: 2,
    stdout: '',
    stderr:
      "thread-host: invalid value 'tcp://127.0.0.1:1' for '--listen <URL>': unsupported --listen URL `tcp://127.0.0.1:1`; " +
      "expected `stdio://`, `unix://`, `unix://PATH`, `ws://IP:PORT`, or `off`\nRun 'thread-host --help' for usage.\n",
  });
  const help = run(['app-server', '--help']);
  expect([help.status, help.stdout.split('\n')[0]]).toEqual([0, 'Usage: thread-host app-server [options]']);
});

test('a bad -c value stops the process with exit 1 and names the key', () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-cfg-'));
  try {
    expect(run(['app-server', '-c', 'thread_unload_delay_secs=-1'], { CODEX_HOME: home, THREAD_HOST_HOME: home })).toEqual({
      status: 1,
      stdout: '',
      stderr: 'thread-host: invalid configuration: thread_unload_delay_secs: invalid value: integer `-1`, expected u64\n',
    });
    expect(run(['app-server', '-c', 'thread_unload_delay_secs'], { CODEX_HOME: home, THREAD_HOST_HOME: home })).toEqual({
      status: 1,
      stdout: '',
      stderr: "thread-host: invalid configuration: error parsing -c overrides: Invalid override (missing '='): thread_unload_delay_secs\n",
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a bad value in config.toml lets the server start and fails thread/start naming the file and key', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, rootConfig: 'thread_unload_delay_secs = "x"' });
  const error = await server.request('thread/start', {}).catch((e: unknown) => e);
  expect(error).toEqual(
    new RpcReplyError(-32600, `failed to load configuration: ${join(server.home, 'config.toml')}: thread_unload_delay_secs: invalid type: string "x", expected u64`),
  );
  expect(await server.close()).toBe(0);
});

test('with no provider configured the embedded model answers, deterministically', async () => {
  const server = await TestServer.start();
  const started = await server.request('thread/start', {});
  expect([started.model, started.modelProvider]).toEqual(['thread-host-echo', 'embedded']);
  await server.request('turn/start', { threadId: started.thread.id, input: [{ type: 'text', text: 'hello there' }] });
  const completed = await server.waitForNotification('turn/completed');
  expect(completed.turn.items.map((item: { text: string }) => item.text)).toEqual(['You said: hello there']);
  expect(await server.close()).toBe(0);
});

test.each(['eof', 'SIGTERM'] as const)('shutdown on %s unloads every thread, removes its lock file and exits 0', async (how) => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-stop-'));
  try {
    const server = await TestServer.start({ home, modelUrl: mock.url });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { thread } = await server.request('thread/start', {});
      ids.push(thread.id);
      await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: `turn ${i}` }] });
      await server.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
    }
    expect(readdirSync(join(home, 'thread-writer-locks')).length).toBe(4);
    const code = how === 'eof' ? await server.close() : await server.kill('SIGTERM');
    expect(code).toBe(0);
    expect(readdirSync(join(home, 'thread-writer-locks'))).toEqual(['.coordination.lock']);
    // Every thread is intact for the next process.
    const next = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
    for (const threadId of ids) expect((await next.request('thread/resume', { threadId })).thread.turns.length).toBe(1);
    expect(await next.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('thread/read and thread/list answer from disk for threads that are not loaded', async () => {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-list-'));
  try {
    writeFileSync(join(home, 'config.toml'), '');
    const first = await TestServer.start({ home, modelUrl: mock.url });
    const ids: string[] = [];
    for (const text of ['alpha', 'beta']) {
      const { thread } = await first.request('thread/start', {});
      ids.push(thread.id);
      await first.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
      await first.waitForNotification('turn/completed', (p) => p.threadId === thread.id);
    }
    await first.request('thread/start', {}); // never materialized: not listed
    expect(await first.close()).toBe(0);
    const second = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
    const listed = await second.request('thread/list', {});
    expect(listed.data.map((t: { id: string; preview: string; status: unknown; turns: unknown[] }) => [t.id, t.preview, t.status, t.turns])).toEqual([
      [ids[1], 'beta', { type: 'notLoaded' }, []],
      [ids[0], 'alpha', { type: 'notLoaded' }, []],
    ]);
    expect(listed.nextCursor).toBe(null);
    const page = await second.request('thread/list', { limit: 1 });
    const rest = await second.request('thread/list', { limit: 1, cursor: page.nextCursor });
    expect([page.data[0].id, rest.data[0].id, rest.nextCursor]).toEqual([ids[1], ids[0], null]);
    const read = await second.request('thread/read', { threadId: ids[0], includeTurns: true });
    expect([read.thread.status, read.thread.environments, read.thread.canAcceptDirectInput, read.thread.turns.length]).toEqual([{ type: 'notLoaded' }, null, null, 1]);
    expect(await second.close()).toBe(0);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('the demo command runs a streamed session on the embedded model and exits 0', () => {
  const result = run(['demo']);
  expect(result.status).toBe(0);
  const methods = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('<- '))
    .map((line) => JSON.parse(line.slice(3)).method ?? 'reply');
  expect(methods.filter((m) => m === 'turn/completed').length).toBe(2);
  expect(methods.filter((m) => m === 'item/agentMessage/delta').length).toBeGreaterThan(2);
});

test('requests in flight when stdin closes are still answered before the process exits', async () => {
  const server = await TestServer.start({ modelUrl: mock.url });
  const reply = server.requestRaw('thread/start', {});
  server.child.stdin.end();
  const answered = await reply;
  expect([answered.id, typeof answered.result.thread.id]).toEqual([1, 'string']);
  expect(await server.close()).toBe(0);
});

test('THREAD_HOST_STATS_INTERVAL_MS logs memory, descriptors, event-loop delay, threads and workers', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { THREAD_HOST_STATS_INTERVAL_MS: '100', THREAD_HOST_LOG: 'info' } });
  await server.request('thread/start', {});
  const stats = await server.waitForLog((line) => line.msg === 'stats' && line.loadedThreads === 1 && line.liveWorkers === 2);
  expect(Object.keys(stats).sort()).toEqual(['eventLoopDelayMs', 'level', 'liveWorkers', 'loadedThreads', 'msg', 'openFds', 'rssBytes', 'ts']);
  expect([typeof stats.rssBytes, typeof stats.openFds, Object.keys(stats.eventLoopDelayMs)]).toEqual(['number', 'number', ['p50', 'p99', 'max']]);
  expect(await server.close()).toBe(0);
});

test('requests that arrive while a SIGTERM shutdown is under way are refused as draining', async () => {
  const server = await TestServer.start({
    modelUrl: mock.url,
    env: { THREAD_HOST_LOG: 'info', THREAD_HOST_FAULT_BLOCK_CLOSE_MS: '1500', THREAD_HOST_ACTOR_CLOSE_TIMEOUT_MS: '3000' },
  });
  const { thread } = await server.request('thread/start', {});
  server.child.kill('SIGTERM');
  await server.waitForLog((line) => line.msg === 'shutting down');
  expect((await server.requestRaw('thread/loaded/list', {})).error).toEqual({ code: -32600, message: 'server is shutting down', data: { reason: 'draining' } });
  expect(await server.waitForNotification('thread/closed')).toEqual({ threadId: thread.id });
  expect(await server.exited).toBe(0);
});
