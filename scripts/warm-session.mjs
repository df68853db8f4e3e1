// Run by scripts/bundle.mjs: the session that the main bundle's code cache is made from. It
// starts the CLI bundle through scripts/warm-code-cache.mjs (which writes the cache as that
// process exits) and walks it through what a host does in its first minutes, so that V8 caches
// the compiled code of every path a request takes, not only the start's: a function missing
// from the cache is parsed and compiled when it first runs, on the main thread, while every
// other request waits (a process's first unload compiled ~45 functions, ~1 ms, and its first
// turn/start ~2.4 ms more than with the cache; measured in issue 13's eighth session).
//
// The session, each step with a deadline: initialize; two threads, each with a turn on a mock
// model on loopback; the reads and listings; an unload with the writer coordination lock free,
// and one while this process holds it (the janitor's path); both threads resumed cold (the
// history's decoding, with the native string extractor); both unloaded; stdin's end.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const STEP_DEADLINE_MS = 20_000;

/** Runs the session against `bundle` in `home`; resolves once the process exited 0, rejects with its output otherwise. */
export async function runWarmSession(bundle, home) {
  const { startMockModel } = await import('../dist/src/main/mock-model/mock-model-server.js');
  const { mockModelConfig } = await import('../dist/src/main/mock-model/mock-config.js');
  const mock = await startMockModel();
  writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url, 'thread_unload_delay_secs = 0'));
  const child = spawn(process.execPath, ['scripts/warm-code-cache.mjs', bundle], {
    env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    const index = waiting.findIndex((w) => w.test(message));
    if (index >= 0) waiting.splice(index, 1)[0].resolve(message);
  });
  const until = (what, test) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${STEP_DEADLINE_MS} ms`)), STEP_DEADLINE_MS);
      waiting.push({ test, resolve: (message) => (clearTimeout(timer), resolve(message)) });
    });
  let nextId = 0;
  const request = async (method, params) => {
    const id = (nextId += 1);
    const reply = until(`answer to ${method}`, (m) => m.id === id);
    child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    const message = await reply;
    if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message.result;
  };
  const unload = async (threadId) => {
    const closed = until(`thread/closed of ${threadId}`, (m) => m.method === 'thread/closed' && m.params.threadId === threadId);
    await request('thread/unsubscribe', { threadId });
    await closed;
  };
  try {
    await request('initialize', { clientInfo: { name: 'build', version: '0' } });
    child.stdin.write('{"method":"initialized"}\n');
    const threads = [];
    for (const text of ['first', 'second']) {
      const { thread } = await request('thread/start', {});
      const completed = until('turn/completed', (m) => m.method === 'turn/completed' && m.params.threadId === thread.id);
      await request('turn/start', { threadId: thread.id, input: [{ type: 'text', text }] });
      await completed;
      threads.push(thread.id);
    }
    await request('thread/loaded/list', {});
    await request('thread/read', { threadId: threads[0], includeTurns: true });
    await request('thread/turns/list', { threadId: threads[0] });
    await request('thread/list', {});
    await unload(threads[0]);
    // The second while this process holds the coordination lock, as another host would.
    const coordination = openSync(join(home, 'thread-writer-locks', '.coordination.lock'), 'a+');
    try {
      createRequire(import.meta.url)('fs-ext').flockSync(coordination, 'ex');
      await unload(threads[1]);
    } finally {
      closeSync(coordination);
    }
    for (const threadId of threads) {
      await request('thread/resume', { threadId });
      await request('thread/read', { threadId, includeTurns: true });
    }
    await request('thread/loaded/list', {});
    for (const threadId of threads) await unload(threadId);
    child.stdin.end();
    const code = await exited;
    if (code !== 0) throw new Error(`exited with ${code}`);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\n${stderr}`);
  } finally {
    await mock.close();
  }
}

/** The cache of a start alone (initialize, then stdin's end): what is left when the session cannot run. */
export async function runWarmStart(bundle, home) {
  const { mockModelConfig } = await import('../dist/src/main/mock-model/mock-config.js');
  writeFileSync(join(home, 'config.toml'), mockModelConfig('http://127.0.0.1:9/v1'));
  const initialize = { id: 1, method: 'initialize', params: { clientInfo: { name: 'build', version: '0' } } };
  const warm = spawnSync(process.execPath, ['scripts/warm-code-cache.mjs', bundle], {
    input: `${JSON.stringify(initialize)}\n`,
    env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (warm.status !== 0 || !warm.stdout.startsWith('{"id":1,"result"')) {
    throw new Error(`the warm-up start of ${bundle} failed (exit ${warm.status}):\n${warm.stdout}${warm.stderr}`);
  }
}
