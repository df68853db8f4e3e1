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
// native string extractor); both unloaded; stdin's end. It is driven by the bench's client
// (bench/lib/app-server-client.ts): every wait has a deadline, a server that dies fails them
// all at once, and the process is killed if it does not exit. Whatever goes wrong rejects the
// session, and bundle.mjs falls back to the cache of a start alone (runWarmStart).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const WARM_CODE_CACHE = fileURLToPath(new URL('./warm-code-cache.mjs', import.meta.url));
const STEP_DEADLINE_MS = 20_000;
/** Longer than the janitor's first retry (JANITOR_BASE_DELAY_MS, 250 ms), so that one runs under contention. */
const LOCK_HELD_MS = 400;

/** Runs the session against `bundle` in `home`; resolves once the process exited 0. */
export async function runWarmSession(bundle, home) {
  const { AppServerClient } = await import('../dist/bench/lib/app-server-client.js');
  const { startMockModel } = await import('../dist/src/main/mock-model/mock-model-server.js');
  const { mockModelConfig } = await import('../dist/src/main/mock-model/mock-config.js');
  const mock = await startMockModel();
  let client = null;
  try {
    writeFileSync(join(home, 'config.toml'), mockModelConfig(mock.url, 'thread_unload_delay_secs = 0'));
    client = await AppServerClient.start({ argv: [process.execPath, WARM_CODE_CACHE, resolve(bundle)], env: {} }, home, STEP_DEADLINE_MS);
    await converse(client, home);
    const exit = await client.close(STEP_DEADLINE_MS);
    client = null;
    if (exit.code !== 0) throw new Error(`the warm-up process ended with ${exit.code ?? exit.signal}`);
  } finally {
    // A session that failed: the process is stopped (killed past a short grace) before its home goes.
    await client?.close(1_000);
    await mock.close();
  }
}

/** The session's requests after initialize, each awaited with a deadline. */
async function converse(client, home) {
  const request = (method, params) => client.request(method, params, STEP_DEADLINE_MS);
  const unload = async (threadId) => {
    const closed = client.waitFor('thread/closed', threadId, STEP_DEADLINE_MS);
    await request('thread/unsubscribe', { threadId });
    await closed;
  };
  const threads = [];
  for (const text of ['first', 'second']) {
    const { thread } = await request('thread/start', {});
    const completed = client.waitFor('turn/completed', thread.id, STEP_DEADLINE_MS);
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
  for (const deadline = Date.now() + STEP_DEADLINE_MS; existsSync(leftBehind); await delay(20)) {
    if (Date.now() > deadline) throw new Error(`the janitor did not remove ${leftBehind} within ${STEP_DEADLINE_MS} ms`);
  }
  for (const threadId of threads) {
    await request('thread/resume', { threadId });
    await request('thread/read', { threadId, includeTurns: true });
  }
  await request('thread/loaded/list', {});
  for (const threadId of threads) await unload(threadId);
}

/** The cache of a start alone (initialize, then stdin's end): what is left when the session cannot run. */
export async function runWarmStart(bundle, home) {
  const { mockModelConfig } = await import('../dist/src/main/mock-model/mock-config.js');
  writeFileSync(join(home, 'config.toml'), mockModelConfig('http://127.0.0.1:9/v1'));
  const initialize = { id: 1, method: 'initialize', params: { clientInfo: { name: 'build', version: '0' } } };
  const warm = spawnSync(process.execPath, [WARM_CODE_CACHE, bundle], {
    input: `${JSON.stringify(initialize)}\n`,
    env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (warm.status !== 0 || !warm.stdout.startsWith('{"id":1,"result"')) {
    throw new Error(`the warm-up start of ${bundle} failed (exit ${warm.status}):\n${warm.stdout}${warm.stderr}`);
  }
}
