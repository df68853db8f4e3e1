// Run by scripts/bundle.mjs: the session that the main bundle's code cache is made from. It
// starts the CLI bundle through scripts/warm-code-cache.mjs (which writes the cache as that
// process exits) and walks it through what a host does in its first minutes, so that V8 caches
// the compiled code of every path a request takes, not only the start's: a function missing
// from the cache is parsed and compiled when it first runs, on the main thread, while every
// other request waits (a process's first unload compiled ~45 functions, ~1 ms, and its first
// thread/start ~2 ms more than with the cache; measured in issue 13's eighth session).
//
// The session: initialize; two threads, each with a turn on a mock model on loopback; the
// reads and listings; an unload with the writer coordination lock free, and one while this
// process holds it, held past the janitor's first retry and then let go, until the janitor has
// removed the lock file left behind; both threads resumed cold (the history's decoding, with the
// native string extractor); both unloaded; stdin's end. Every wait has a deadline, and whatever
// goes wrong (an error answer, a child that dies or hangs) rejects the session, with the child
// killed and the mock model closed: bundle.mjs then falls back to the cache of a start alone.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';

const STEP_DEADLINE_MS = 20_000;
/** Longer than the janitor's first retry (JANITOR_BASE_DELAY_MS, 250 ms), so that one runs under contention. */
const LOCK_HELD_MS = 400;

/** Runs the session against `bundle` in `home`; resolves once the process exited 0, rejects with its output otherwise. */
export async function runWarmSession(bundle, home) {
  const { startMockModel } = await import('../dist/src/main/mock-model/mock-model-server.js');
  const { mockModelConfig } = await import('../dist/src/main/mock-model/mock-config.js');
  const mock = await startMockModel();
  let child = null;
  let stderr = '';
  try {
    writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url, 'thread_unload_delay_secs = 0'));
    child = spawn(process.execPath, ['scripts/warm-code-cache.mjs', bundle], {
      env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.setEncoding('utf8').on('data', (text) => (stderr += text));
    await converse(child, home);
  } catch (error) {
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
    throw new Error(`${error.message}\n${stderr}`);
  } finally {
    await mock.close();
  }
}

/** The session's requests, each awaited with a deadline; rejects at the first thing that goes wrong. */
async function converse(child, home) {
  // Every wait is in this list, so that one failure rejects them all (none is left to reject,
  // unheard, after the session has ended), and each is marked handled where it is made.
  const waiting = new Set();
  let failure = null;
  const failAll = (error) => {
    failure ??= error;
    for (const wait of waiting) wait.reject(failure);
    waiting.clear();
  };
  const until = (what, test) => {
    if (failure !== null) return Promise.reject(failure);
    let wait;
    const promise = new Promise((resolve, reject) => {
      // Unref'd: a wait left over once the session has failed must not hold the build up; while
      // the session runs, the child's pipes keep the event loop alive.
      const timer = setTimeout(() => failAll(new Error(`no ${what} within ${STEP_DEADLINE_MS} ms`)), STEP_DEADLINE_MS).unref();
      const settle = (finish) => (value) => (clearTimeout(timer), waiting.delete(wait), finish(value));
      wait = { test, resolve: settle(resolve), reject: settle(reject) };
      waiting.add(wait);
    });
    promise.catch(() => undefined);
    return promise;
  };
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  let ending = false;
  child.once('exit', (code, signal) => ending || failAll(new Error(`the warm-up process exited (${code ?? signal}) during the session`)));
  child.once('error', failAll);
  child.stdin.on('error', failAll);
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      failAll(new Error(`a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    for (const wait of waiting) {
      if (wait.test(message)) {
        wait.resolve(message);
        break;
      }
    }
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
  // The second while this process holds the coordination lock, as another host would: the
  // release leaves its file to the janitor, whose first retry finds coordination busy.
  const locks = join(home, 'thread-writer-locks');
  const coordination = openSync(join(locks, '.coordination.lock'), 'a+');
  try {
    createRequire(import.meta.url)('fs-ext').flockSync(coordination, 'ex');
    await unload(threads[1]);
    await delay(LOCK_HELD_MS);
  } finally {
    closeSync(coordination);
  }
  // Its next retry finds coordination free and removes the file.
  const leftBehind = join(locks, `${threads[1]}.lock`);
  for (const deadline = Date.now() + STEP_DEADLINE_MS; existsSync(leftBehind); ) {
    if (Date.now() > deadline) throw new Error(`the janitor did not remove ${leftBehind} within ${STEP_DEADLINE_MS} ms`);
    if (failure !== null) throw failure;
    await delay(20);
  }
  for (const threadId of threads) {
    await request('thread/resume', { threadId });
    await request('thread/read', { threadId, includeTurns: true });
  }
  await request('thread/loaded/list', {});
  for (const threadId of threads) await unload(threadId);
  ending = true;
  child.stdin.end();
  // Not a ref'd timer: the build would wait it out after the process exited.
  const code = await Promise.race([exited, delay(STEP_DEADLINE_MS, `no exit within ${STEP_DEADLINE_MS} ms of stdin's end`, { ref: false })]);
  if (code !== 0) throw new Error(`the warm-up process ended: ${code}`);
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
