import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import type { ActorEvent } from '../../../../src/common/actor-messages.js';
import { ephemeralActorInit } from '../../../helpers/actor-init.js';
import { ActorPool } from '../../../../src/main/pool/actor-pool.js';

// The pool loads the compiled worker entry; `npm test` builds before running vitest.
const WORKER = fileURLToPath(new URL('../../../../dist/workers/thread-host.js', import.meta.url));

let pool: ActorPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

const init = ephemeralActorInit;

test('actors are spread evenly over the workers and keep answering after their workers go idle', async () => {
  expect(existsSync(WORKER)).toBe(true);
  const events: ActorEvent[] = [];
  pool = new ActorPool({ size: 2, filename: WORKER, onEvent: (e) => events.push(e), onWorkerLost: () => undefined, log: () => undefined });
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  await Promise.all(ids.map((id) => pool!.spawn(init(id), 5_000)));
  expect(Object.values(pool.placement()).sort()).toEqual([3, 3]);
  // With Piscina's default `atomics` an idle worker parks in Atomics.wait and its actors go
  // deaf; the pool disables that, so a turn started after an idle pause still streams back.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const link = pool.linkOf('d')!;
  await link.api.startTurn('d', {
    turnId: 't1',
    userItemId: 'u1',
    clientId: null,
    input: [{ type: 'text', text: 'ping', text_elements: [] }],
    settings: init('d').settings,
    outputSchema: null,
  });
  await expect.poll(() => events.find((e) => e.type === 'turnEnded')?.type, { timeout: 5_000 }).toBe('turnEnded');
  expect(events.filter((e) => e.threadId === 'd').map((e) => e.type)).toEqual([
    'turnStarted',
    'userItem',
    'agentItemStarted',
    // "You said: ping" streams as three word-sized deltas.
    'agentDelta',
    'agentDelta',
    'agentDelta',
    'agentItemCompleted',
    'tokenUsage',
    'turnEnded',
  ]);
  expect(await link.api.close('d')).toBe('closed');
  pool.forget('d');
  expect(Object.values(pool.placement()).sort()).toEqual([2, 3]);
});

/** The pool's log, as [message, fields] pairs. */
function recordingLog(): { lines: [string, Record<string, unknown>][]; log: (level: string, message: string, fields?: Record<string, unknown>) => void } {
  const lines: [string, Record<string, unknown>][] = [];
  return { lines, log: (_level, message, fields = {}) => lines.push([message, fields]) };
}

/** Closes and forgets each thread's actor, as an unload does. */
async function unloadAll(threadIds: string[]): Promise<void> {
  for (const id of threadIds) {
    expect(await pool!.linkOf(id)!.api.close(id)).toBe('closed');
    pool!.forget(id);
  }
}

test('a worker emptied after hosting many actors is retired, a fresh one takes its place, and the next actor lands on a live worker', async () => {
  const { lines, log } = recordingLog();
  pool = new ActorPool({ size: 2, filename: WORKER, onEvent: () => undefined, onWorkerLost: () => undefined, log, retireAfterActors: 2, retireIdleMs: 20 });
  // Placed one after another: a and c on one worker, b on the other, which hosted only one.
  for (const id of ['a', 'b', 'c']) await pool.spawn(init(id), 5_000);
  const busy = pool.linkOf('a')!.workerId;
  const quiet = pool.linkOf('b')!.workerId;
  expect(pool.placement()).toEqual({ [busy]: 2, [quiet]: 1 });
  await unloadAll(['a', 'b', 'c']);
  expect(pool.placement()).toEqual({ [busy]: 0, [quiet]: 0 });
  await expect.poll(() => lines.filter(([message]) => message === 'pool worker ready').length, { timeout: 10_000 }).toBe(3);
  const fresh = lines.filter(([message]) => message === 'pool worker ready')[2]![1].workerId as number;
  expect(lines.filter(([message]) => message === 'pool worker retired')).toEqual([
    ['pool worker retired', { workerId: busy, hosted: 2, liveWorkers: 1, size: 2 }],
  ]);
  expect(lines.some(([message]) => message === 'pool worker lost')).toBe(false);
  // The worker that hosted one actor stays; the retired one is gone, its replacement serves.
  expect(pool.placement()).toEqual({ [quiet]: 0, [fresh]: 0 });
  expect(fresh).not.toBe(busy);
  await pool.spawn(init('d'), 5_000);
  await pool.spawn(init('e'), 5_000);
  expect(pool.placement()).toEqual({ [quiet]: 1, [fresh]: 1 });
  expect(await pool.linkOf('d')!.api.ping()).toBe(1);
  expect(await pool.linkOf('e')!.api.ping()).toBe(1);
});

test('both workers emptied retire one at a time, so one always takes new actors', async () => {
  const { lines, log } = recordingLog();
  pool = new ActorPool({ size: 2, filename: WORKER, onEvent: () => undefined, onWorkerLost: () => undefined, log, retireAfterActors: 1, retireIdleMs: 20 });
  for (const id of ['a', 'b']) await pool.spawn(init(id), 5_000);
  const first = [pool.linkOf('a')!.workerId, pool.linkOf('b')!.workerId];
  await unloadAll(['a', 'b']);
  await expect.poll(() => lines.filter(([message]) => message === 'pool worker ready').length, { timeout: 10_000 }).toBe(4);
  const events = lines.filter(([message]) => message === 'pool worker ready' || message === 'pool worker retired').map(([message, fields]) => [message, fields.liveWorkers]);
  // Never fewer than one live worker: each retirement waits for the previous one's replacement.
  expect(events).toEqual([
    ['pool worker ready', 1],
    ['pool worker ready', 2],
    ['pool worker retired', 1],
    ['pool worker ready', 2],
    ['pool worker retired', 1],
    ['pool worker ready', 2],
  ]);
  expect(Object.keys(pool.placement()).map(Number).filter((id) => first.includes(id))).toEqual([]);
});

test('a worker whose last actor is still closing answers busy and is retired once it has closed', async () => {
  const { lines, log } = recordingLog();
  pool = new ActorPool({ size: 2, filename: WORKER, onEvent: () => undefined, onWorkerLost: () => undefined, log, retireAfterActors: 1, retireIdleMs: 20 });
  await pool.spawn(init('a'), 5_000);
  await pool.spawn(init('b'), 5_000);
  const link = pool.linkOf('a')!;
  // As a fenced unload does: the host forgets the thread while its actor is still closing.
  pool.forget('a');
  await expect.poll(() => lines.find(([message]) => message === 'pool worker not retired'), { timeout: 5_000 }).toEqual([
    'pool worker not retired',
    { workerId: link.workerId, answer: 'busy' },
  ]);
  expect(lines.some(([message]) => message === 'pool worker retired')).toBe(false);
  // Back to serving after 'busy', so it is asked again, and retires once the actor is gone.
  expect(await link.api.close('a')).toBe('closed');
  await expect.poll(() => lines.find(([message]) => message === 'pool worker retired'), { timeout: 5_000 }).toEqual([
    'pool worker retired',
    { workerId: link.workerId, hosted: 1, liveWorkers: 1, size: 2 },
  ]);
});

test("a fenced actor's close is posted after the current iteration, and a new actor for the same thread waits behind it", async () => {
  pool = new ActorPool({ size: 1, filename: WORKER, onEvent: () => undefined, onWorkerLost: () => undefined, log: () => undefined });
  await pool.spawn(init('a'), 5_000);
  const link = pool.linkOf('a')!;
  // As a fenced unload does: bound to the worker, then the thread is forgotten, then the close.
  const close = pool.fencedCloser('a');
  pool.forget('a');
  const closing = close()!;
  // Sent after the close was asked for, answered before it: the close waits for the iteration's end.
  const before = link.api.ping();
  expect([await closing, await before, await link.api.ping()]).toEqual(['closed', 1, 0]);

  // A new incarnation placed while the old one's close is still owed: the close goes first and
  // closes the old actor, so the new one stays.
  const closeUnplaced = pool.fencedCloser('a');
  await pool.spawn(init('a'), 5_000);
  const closeOld = pool.fencedCloser('a');
  pool.forget('a');
  const owed = closeOld()!;
  const respawned = pool.spawn(init('a'), 5_000);
  expect([await owed, await respawned, await link.api.ping()]).toEqual(['closed', null, 1]);
  // Bound while no worker hosted the thread: there is nothing to close.
  expect(closeUnplaced()).toBe(null);
});

test('fenced closes bound for one worker in the same iteration go in one message, each answered as its own', async () => {
  pool = new ActorPool({ size: 1, filename: WORKER, onEvent: () => undefined, onWorkerLost: () => undefined, log: () => undefined });
  for (const id of ['a', 'b', 'c', 'd']) await pool.spawn(init(id), 5_000);
  const link = pool.linkOf('a')!;
  // What the pool asks of the worker, recorded on the way to the real calls.
  const asked: string[][] = [];
  const api = link.api;
  const recording = {
    ...api,
    close: (threadId: string) => (asked.push(['close', threadId]), api.close(threadId)),
    closeMany: (threadIds: string[]) => (asked.push(['closeMany', ...threadIds]), api.closeMany(threadIds)),
  };
  (link as { api: unknown }).api = recording;
  const closers = ['a', 'b', 'c'].map((id) => pool!.fencedCloser(id));
  for (const id of ['a', 'b', 'c']) pool.forget(id);
  // c's actor is closed by a direct call first, so the batch finds it gone.
  expect(await api.close('c')).toBe('closed');
  const batch = await Promise.all(closers.map((close) => close()));
  // A lone close in its iteration goes the same way, alone.
  const closeD = pool.fencedCloser('d');
  pool.forget('d');
  const single = await closeD();
  expect([batch, single, asked, await api.ping()]).toEqual([['closed', 'closed', 'notFound'], 'closed', [['closeMany', 'a', 'b', 'c'], ['closeMany', 'd']], 0]);
});
