// Host-level behaviour of the writer-lock backends: a process holding a thread keeps another
// out until it dies (flock at once, lockfile after the stale time), shutdown cleans up, a home
// never serves two backends, and a lockfile lock lost under a running turn stops the host
// writing that thread at once, even when the host is paused inside its heartbeat (between the
// lock directory's stat being answered and the heartbeat seeing the answer).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { LOCK_BACKENDS, TEST_LOCKFILE_STALE_MS, TEST_LOCKFILE_UPDATE_MS, lockDir, threadLockPath, withBackend } from '../helpers/lock-backends.js';
import { CLI, RpcReplyError, TestServer, type Message } from '../helpers/test-server.js';
import { parseRollout } from '../../src/common/rollout/rollout-reader.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});
function tempHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-backends-'));
  homes.push(home);
  return home;
}

async function runTurn(server: TestServer, threadId: string, text: string): Promise<Message> {
  const { turn } = await server.request('turn/start', { threadId, input: [{ type: 'text', text }] });
  return server.waitForNotification('turn/completed', (p) => p.turn.id === turn.id);
}

/** Starts a turn whose model answer stalls `stallMs`; resolves once its user message is on disk. */
async function startTurnToCut(server: TestServer, thread: Message, stallMs: number): Promise<Message> {
  mock.enqueue({ kind: 'stall', ms: stallMs });
  const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'across the pause' }] });
  await vi.waitFor(() => expect(readFileSync(thread.path, 'utf8')).toContain('"text":"across the pause"'));
  return turn;
}

/**
 * With `paused` stopped: `other` resumes the thread once its lock is stale and runs a turn; then
 * `paused` wakes and must close the thread. Returns that turn and the file as `paused` woke to it.
 */
async function takeOverThenWake(paused: TestServer, other: TestServer, thread: Message): Promise<{ secondTurn: string; beforeWaking: string }> {
  const stoppedAt = Date.now();
  for (;;) {
    const reply = await other.requestRaw('thread/resume', { threadId: thread.id });
    if ('result' in reply) break;
    expect([reply.error.message, Date.now() - stoppedAt < TEST_LOCKFILE_STALE_MS + 5_000]).toEqual([`thread ${thread.id} already has an active writer`, true]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const secondTurn = (await runTurn(other, thread.id, 'after the takeover')).turn.id;
  const beforeWaking = readFileSync(thread.path, 'utf8');
  paused.child.kill('SIGCONT');
  const closed = await paused.waitForNotification('thread/closed', (p) => p.threadId === thread.id, 10_000);
  expect(closed).toEqual({ threadId: thread.id });
  return { secondTurn, beforeWaking };
}

describe.each(LOCK_BACKENDS)('%s backend', (backend) => {
  test('a second process is refused while the first writes, and resumes once the first is killed', async () => {
    const home = tempHome();
    const first = await TestServer.start({ home, modelUrl: mock.url, rootConfig: withBackend(backend) });
    const { thread } = await first.request('thread/start', {});
    await runTurn(first, thread.id, 'owned by the first');
    const second = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
    const refused = await second.request('thread/resume', { threadId: thread.id }).catch((e: unknown) => e);
    expect(refused).toEqual(new RpcReplyError(-32600, `thread ${thread.id} already has an active writer`));
    // The second can still read it from disk without taking the lock.
    expect((await second.request('thread/read', { threadId: thread.id })).thread.status).toEqual({ type: 'notLoaded' });
    await first.kill('SIGKILL');
    const killedAt = Date.now();
    // flock dies with its process; a lock directory goes stale after lockfile_stale_ms.
    let resumed: Message;
    for (;;) {
      const reply = await second.requestRaw('thread/resume', { threadId: thread.id });
      if ('result' in reply) {
        resumed = reply.result;
        break;
      }
      expect(reply.error).toEqual({ code: -32600, message: `thread ${thread.id} already has an active writer` });
      expect(backend).toBe('lockfile');
      expect(Date.now() - killedAt).toBeLessThan(TEST_LOCKFILE_STALE_MS + TEST_LOCKFILE_UPDATE_MS + 2_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([resumed.thread.id, resumed.thread.turns.length]).toEqual([thread.id, 1]);
    expect(await second.close()).toBe(0);
  });

  test('shutdown unloads every thread and leaves no thread lock behind', async () => {
    const home = tempHome();
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: withBackend(backend) });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { thread } = await server.request('thread/start', {});
      ids.push(thread.id);
      await runTurn(server, thread.id, `turn ${i}`);
    }
    expect(ids.map((id) => existsSync(threadLockPath(home, backend, id)))).toEqual([true, true, true]);
    expect(await server.close()).toBe(0);
    expect(readdirSync(lockDir(home, backend))).toEqual(backend === 'flock' ? ['.coordination.lock'] : []);
    expect(readFileSync(join(home, 'writer-lock-backend'), 'utf8')).toBe(`${backend}\n`);
  });
});

describe('one backend per home', () => {
  const run = (home: string, args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, 'app-server', ...args], {
      env: { ...process.env, CODEX_HOME: home, THREAD_HOST_HOME: home },
      encoding: 'utf8',
      timeout: 20_000,
      input: '',
    });
    return { status: result.status, stderr: result.stderr };
  };

  test('a host configured for the other backend refuses to start, naming both', () => {
    const home = tempHome();
    expect(run(home, [])).toEqual({ status: 0, stderr: '' });
    expect(run(home, ['-c', 'writer_lock_backend=lockfile'])).toEqual({
      status: 1,
      stderr:
        `thread-host: invalid configuration: this home's writer locks use the \`flock\` backend (recorded in ${join(home, 'writer-lock-backend')}), ` +
        'but this host is configured with writer_lock_backend = "lockfile"; hosts with different backends cannot exclude each other, ' +
        'so every host on a home must use the same one (set writer_lock_backend = "flock", or use another home)\n',
    });
  });

  test('a bad backend value stops the host at startup even from config.toml', () => {
    const home = tempHome();
    expect(run(home, ['-c', 'writer_lock_backend="nfs"'])).toEqual({
      status: 1,
      stderr: 'thread-host: invalid configuration: writer_lock_backend: unknown variant `nfs`, expected `flock` or `lockfile`\n',
    });
    expect(existsSync(join(home, 'writer-lock-backend'))).toBe(false);
  });
});

describe('a lost lockfile lock', () => {
  test('the running turn fails, subscribers are warned and told thread/closed, and nothing more is written', async () => {
    const home = tempHome();
    const server = await TestServer.start({ home, modelUrl: mock.url, rootConfig: withBackend('lockfile') });
    const { thread } = await server.request('thread/start', {});
    await runTurn(server, thread.id, 'before the loss');
    const before = readFileSync(thread.path, 'utf8');
    // The next answer never comes in time: the turn is running when the lock goes.
    mock.enqueue({ kind: 'stall', ms: 30_000 });
    const { turn } = await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'during the loss' }] });
    // The turn's first batch (its start and the user message) lands before the model is asked.
    await vi.waitFor(() => expect(readFileSync(thread.path, 'utf8')).toContain('"text":"during the loss"'));
    const written = readFileSync(thread.path, 'utf8');
    // Another host removing the directory: the next heartbeat (within a second) finds it gone.
    rmdirSync(threadLockPath(home, 'lockfile', thread.id));
    const closed = await server.waitForNotification('thread/closed', (p) => p.threadId === thread.id, 10_000);
    expect(closed).toEqual({ threadId: thread.id });
    const why = `the writer lock of thread ${thread.id} was lost (ENOENT: no such file or directory, stat '${threadLockPath(home, 'lockfile', thread.id)}'); another host may be writing it now`;
    const tail = server
      .notifications()
      .filter((m) => ['error', 'warning', 'turn/completed', 'thread/closed'].includes(m.method))
      .slice(-4)
      .map((m) => [m.method, m.method === 'turn/completed' ? [m.params.turn.status, m.params.turn.error] : m.params]);
    const error = { message: `${why}; resume the thread to continue`, codexErrorInfo: 'other', additionalDetails: null, misalignment: null };
    expect(tail).toEqual([
      ['error', { error, willRetry: false, threadId: thread.id, turnId: turn.id }],
      ['turn/completed', ['failed', error]],
      ['warning', { threadId: thread.id, message: `thread unloaded (lockLost): ${why}` }],
      ['thread/closed', { threadId: thread.id }],
    ]);
    // Nothing reached the rollout after the loss: it holds what was there when the turn began.
    expect(readFileSync(thread.path, 'utf8')).toBe(written);
    expect(written.startsWith(before)).toBe(true);
    expect(await server.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
    // Resumable: the cut turn reads back as interrupted, as after a crash.
    const resumed = await server.request('thread/resume', { threadId: thread.id });
    expect(resumed.thread.turns.map((t: Message) => [t.id, t.status])).toEqual([
      [before.match(/"turn_id":"([^"]+)"/)![1], 'completed'],
      [turn.id, 'interrupted'],
    ]);
    expect(await server.close()).toBe(0);
  });

  test('a host paused past the stale time writes nothing once it wakes, while the host that took over keeps every turn', async () => {
    const home = tempHome();
    const paused = await TestServer.start({ home, modelUrl: mock.url, rootConfig: withBackend('lockfile') });
    const { thread } = await paused.request('thread/start', {});
    const firstTurn = (await runTurn(paused, thread.id, 'before the pause')).turn.id;
    // Its next answer is ready while the host is stopped: on waking, the turn would end at once.
    const cut = await startTurnToCut(paused, thread, 1_500);
    paused.child.kill('SIGSTOP');
    const other = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
    try {
      // The woken host notices at its next heartbeat, fails the turn and closes the thread.
      const { secondTurn, beforeWaking } = await takeOverThenWake(paused, other, thread);
      const failed = paused.notifications('turn/completed').map((m) => [m.params.turn.id, m.params.turn.status]);
      expect(failed).toEqual([
        [firstTurn, 'completed'],
        [cut.id, 'failed'],
      ]);
      // Not one byte from the woken host: the file is as the new owner left it.
      expect(readFileSync(thread.path, 'utf8')).toBe(beforeWaking);
      const turns = parseRollout(beforeWaking).turns.map((t) => [t.id, t.status]);
      expect(turns).toEqual([
        [firstTurn, 'completed'],
        [cut.id, 'interrupted'],
        [secondTurn, 'completed'],
      ]);
      expect(await other.close()).toBe(0);
      expect(await paused.close()).toBe(0);
    } finally {
      paused.child.kill('SIGCONT');
      await Promise.all([paused.kill(), other.kill()]);
    }
  });

  test('a host paused after its heartbeat stat was answered renews nothing on waking: it writes nothing, and the new owner keeps the lock', async () => {
    const home = tempHome();
    const flag = join(home, 'hold-lock-stat');
    const env = { THREAD_HOST_FAULT_HOLD_LOCK_STAT_FLAG: flag };
    const paused = await TestServer.start({ home, modelUrl: mock.url, rootConfig: withBackend('lockfile'), env });
    const { thread } = await paused.request('thread/start', {});
    const lockPath = threadLockPath(home, 'lockfile', thread.id);
    const firstTurn = (await runTurn(paused, thread.id, 'before the pause')).turn.id;
    // The cut turn's answer arrives after the host has woken and run its heartbeat's callback:
    // a renewed lease would let the turn finish into the new owner's file.
    const cut = await startTurnToCut(paused, thread, 10_000);
    // The next heartbeat's stat is answered, its reply held for 2 s: the pause begins in there.
    writeFileSync(flag, '2000');
    const held = await paused.waitForLog((line) => line.msg === 'injected fault: lock directory stat reply held', 5_000);
    paused.child.kill('SIGSTOP');
    expect([held.path, held.holdMs]).toEqual([lockPath, 2_000]);
    const other = await TestServer.start({ home, modelUrl: mock.url, keepConfig: true });
    try {
      // On waking, the held reply shows the pre-takeover mtime; the lapsed lease is not renewed.
      const { secondTurn, beforeWaking } = await takeOverThenWake(paused, other, thread);
      const completed = paused.notifications('turn/completed').map((m) => [m.params.turn.id, m.params.turn.status, m.params.turn.error?.message.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/, '<time>') ?? null]);
      expect(completed).toEqual([
        [firstTurn, 'completed', null],
        [
          cut.id,
          'failed',
          `the writer lock of thread ${thread.id} was lost (the writer lease of ${lockPath} ran out at <time>, before its heartbeat could refresh it; another host may own it now); another host may be writing it now; resume the thread to continue`,
        ],
      ]);
      expect(readFileSync(thread.path, 'utf8')).toBe(beforeWaking);
      // The new owner keeps the lock through two more heartbeats and goes on writing.
      await new Promise((resolve) => setTimeout(resolve, 2 * TEST_LOCKFILE_UPDATE_MS + 500));
      const thirdTurn = (await runTurn(other, thread.id, 'after the old owner woke')).turn.id;
      expect(other.notifications().filter((m) => m.method === 'thread/closed' || m.method === 'warning')).toEqual([]);
      const turns = parseRollout(readFileSync(thread.path, 'utf8')).turns.map((t) => [t.id, t.status]);
      expect(turns).toEqual([
        [firstTurn, 'completed'],
        [cut.id, 'interrupted'],
        [secondTurn, 'completed'],
        [thirdTurn, 'completed'],
      ]);
      expect(await other.close()).toBe(0);
      expect(await paused.close()).toBe(0);
    } finally {
      paused.child.kill('SIGCONT');
      await Promise.all([paused.kill(), other.kill()]);
    }
  });
});
