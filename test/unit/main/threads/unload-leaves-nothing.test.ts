// Every per-thread entry on the main thread goes with the thread: after 40 threads are started
// and unloaded, each table that held one holds none, counted exactly. In process, with the
// real pool, lock backend and unload sequence.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { HostContext } from '../../../../src/main/host-context.js';

// The compiled host (`npm test` builds first): the pool finds its worker entry beside it.
const dist = (path: string) => new URL(`../../../../dist/src/main/${path}`, import.meta.url).href;
const { buildHost } = (await import(dist('host/build-host.js'))) as typeof import('../../../../src/main/host/build-host.js');
const { readStartupConfig } = (await import(dist('host/startup-config.js'))) as typeof import('../../../../src/main/host/startup-config.js');
const { openStore } = (await import(dist('host/open-store.js'))) as typeof import('../../../../src/main/host/open-store.js');
const { NO_RECORDING } = (await import(dist('metrics/host-recorder.js'))) as typeof import('../../../../src/main/metrics/host-recorder.js');
const { Router } = (await import(dist('router.js'))) as typeof import('../../../../src/main/router.js');

const THREADS = 40;
let ctx: HostContext | null = null;
let home: string | null = null;

afterEach(async () => {
  ctx?.supervisor.stop();
  ctx?.locks.close();
  await ctx?.pool.close();
  if (home !== null) rmSync(home, { recursive: true, force: true });
  ctx = null;
  home = null;
});

test('after every loaded thread unloads, no table on the main thread keeps an entry for any of them', async () => {
  home = mkdtempSync(join(tmpdir(), 'unload-leaves-nothing-'));
  writeFileSync(join(home, 'config.toml'), 'thread_unload_delay_secs = 0\n');
  const log = () => undefined;
  const env = { THREAD_HOST_HOME: home };
  const startup = readStartupConfig(home, [], env, log);
  const hooks = { lockLost: () => undefined, queueChangedHere: () => undefined };
  const { store } = await openStore({ home, env, startup, listen: { kind: 'stdio' }, log, recorder: NO_RECORDING, hooks });
  ctx = buildHost({ home, workers: 2, env }, startup, log, store);
  const router = new Router(ctx, 1024);
  const messages: Record<string, any>[] = [];
  const connection = ctx.connections.open((line) => messages.push(JSON.parse(String(line))) > 0);
  const reply = (id: number) => expect.poll(() => messages.find((m) => m.id === id), { timeout: 10_000 }).toBeDefined();
  router.handleLine(connection, JSON.stringify({ id: 0, method: 'initialize', params: { clientInfo: { name: 'test', version: '0' } } }));
  await reply(0);
  for (let id = 1; id <= THREADS; id += 1) router.handleLine(connection, JSON.stringify({ id, method: 'thread/start', params: {} }));
  // Starts finish in any order: wait for every reply, not the last one sent.
  await expect.poll(() => messages.filter((m) => m.id >= 1).length, { timeout: 10_000 }).toBe(THREADS);
  const threadIds = messages.filter((m) => m.id >= 1).map((m) => m.result.thread.id as string);
  expect([ctx.directory.registeredCount, ctx.directory.loadedCount, ctx.locks.ownedCount()]).toEqual([THREADS, THREADS, THREADS]);
  // A start is answered once its lock is held; its actor is placed just behind the answer.
  await expect.poll(() => Object.values(ctx!.pool.placement()).reduce((a, b) => a + b, 0), { timeout: 10_000 }).toBe(THREADS);
  expect(readdirSync(join(home, 'thread-writer-locks')).filter((name) => name !== '.coordination.lock').length).toBe(THREADS);

  threadIds.forEach((threadId, i) => router.handleLine(connection, JSON.stringify({ id: 1000 + i, method: 'thread/unsubscribe', params: { threadId } })));
  await expect.poll(() => messages.filter((m) => m.method === 'thread/closed').length, { timeout: 10_000 }).toBe(THREADS);

  expect({
    registered: ctx.directory.registeredCount,
    listed: ctx.directory.loadedCount,
    loadedPage: ctx.directory.page(null, null),
    subscribed: ctx.directory.subscribedBy(connection.id).length,
    scheduled: ctx.supervisor.scheduledCount,
    locksOwned: ctx.locks.ownedCount(),
    lockFiles: readdirSync(join(home, 'thread-writer-locks')).filter((name) => name !== '.coordination.lock'),
    actorsPlaced: Object.values(ctx.pool.placement()),
    actorLinks: threadIds.filter((threadId) => ctx!.pool.linkOf(threadId) !== undefined),
  }).toEqual({
    registered: 0,
    listed: 0,
    loadedPage: { data: [], nextCursor: null },
    subscribed: 0,
    scheduled: 0,
    locksOwned: 0,
    lockFiles: [],
    actorsPlaced: [0, 0],
    actorLinks: [],
  });
});
