// A pool worker that blocks, exits, throws or runs out of memory must cost only its own
// threads: they end with a clear error and can be resumed, other threads keep being served,
// and Piscina brings the pool back to its configured size (seen in the info log, where the
// pool reports each worker it gains or loses and where it places each actor).
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer, type Message } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

test('a worker blocked synchronously in unload cleanup does not stop thread/closed or other requests', async () => {
  const server = await TestServer.start({
    modelUrl: mock.url,
    rootConfig: 'thread_unload_delay_secs = 0',
    env: { THREAD_HOST_FAULT_BLOCK_CLOSE_MS: '3000', THREAD_HOST_ACTOR_CLOSE_TIMEOUT_MS: '300', THREAD_HOST_WORKERS: '2' },
  });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  await server.waitForNotification('turn/completed');
  const closed = server.waitForNotification('thread/closed', () => true, 2_000);
  expect(await server.request('thread/unsubscribe', { threadId: thread.id })).toEqual({ status: 'unsubscribed' });
  // The actor is quiet, so it is fenced: closed at once, not after the blocked close or its deadline.
  expect(await closed).toEqual({ threadId: thread.id });
  expect(await server.request('thread/loaded/list', {}, 200)).toEqual({ data: [], nextCursor: null });
  // The close still blocks its worker; at the close deadline the worker is marked stuck.
  const stuck = await server.waitForLog((l) => l.msg === 'a fenced actor did not close its rollout cleanly');
  expect([stuck.threadId, stuck.outcome]).toEqual([thread.id, 'timedOut']);
  // The other worker takes new threads and turns while the first is still blocked.
  const resumed = await server.request('thread/resume', { threadId: thread.id }, 2_000);
  expect(resumed.thread.turns.length).toBe(1);
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'again' }] });
  expect((await server.waitForNotification('turn/completed', () => true, 2_000)).turn.status).toBe('completed');
  expect(await server.close()).toBe(0);
});

const LOST_WORKER = 'the worker hosting this thread exited; resume the thread to continue';

const workerDeaths: Array<[string, Record<string, string>]> = [
  ['exits', { THREAD_HOST_FAULT_EXIT_ON_TEXT: 'fault now' }],
  ['throws an exception nobody catches', { THREAD_HOST_FAULT_THROW_ON_TEXT: 'fault now' }],
  ['runs out of memory', { THREAD_HOST_FAULT_OOM_ON_TEXT: 'fault now', THREAD_HOST_WORKER_MAX_OLD_GENERATION_MB: '48' }],
];

test.each(workerDeaths)('a worker that %s fails its thread with a clear error, serves the rest, and is replaced', async (_name, faultEnv) => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { ...faultEnv, THREAD_HOST_WORKERS: '2', THREAD_HOST_LOG: 'info' } });
  const a = (await server.request('thread/start', {})).thread;
  const b = (await server.request('thread/start', {})).thread;
  // The log is on stderr, which may lag the replies on stdout: wait for each line.
  const placed = async (threadId: string, elsewhereThan?: number) =>
    (await server.waitForLog((l) => l.msg === 'actor placed' && l.threadId === threadId && l.workerId !== elsewhereThan)).workerId as number;
  const [workerOfA, workerOfB] = [await placed(a.id), await placed(b.id)];
  expect(workerOfA).not.toBe(workerOfB);

  const { turn } = await server.request('turn/start', { threadId: a.id, input: [{ type: 'text', text: 'fault now' }] });
  const failed = await server.waitForNotification('turn/completed', (p) => p.threadId === a.id);
  expect([failed.turn.id, failed.turn.status, failed.turn.error.message]).toEqual([turn.id, 'failed', LOST_WORKER]);
  expect(server.notifications('error').map((m) => m.params.error.message)).toEqual([LOST_WORKER]);
  expect(await server.waitForNotification('thread/closed', (p) => p.threadId === a.id)).toEqual({ threadId: a.id });

  // The other worker's thread is served throughout.
  await server.request('turn/start', { threadId: b.id, input: [{ type: 'text', text: 'fine' }] });
  expect((await server.waitForNotification('turn/completed', (p) => p.threadId === b.id)).turn.status).toBe('completed');

  // Piscina replaces the dead worker: the pool is back to two.
  const lost = await server.waitForLog((l) => l.msg === 'pool worker lost');
  const replaced = await server.waitForLog((l) => l.msg === 'pool worker ready' && l.workerId !== workerOfA && l.workerId !== workerOfB);
  expect([lost.workerId, lost.threadIds, lost.liveWorkers, lost.size, replaced.liveWorkers, replaced.size]).toEqual([workerOfA, [a.id], 1, 2, 2, 2]);

  // The thread resumes, on the fresh worker (the fewest actors), with its cut turn interrupted.
  const resumed = await server.request('thread/resume', { threadId: a.id });
  expect(resumed.thread.turns.map((t: Message) => [t.id, t.status, t.items.map((item: Message) => item.type)])).toEqual([[turn.id, 'interrupted', ['userMessage']]]);
  expect(await placed(a.id, workerOfA)).toBe(replaced.workerId);
  await server.request('turn/start', { threadId: a.id, input: [{ type: 'text', text: 'again' }] });
  expect((await server.waitForNotification('turn/completed', (p) => p.threadId === a.id && p.turn.status !== 'failed')).turn.status).toBe('completed');
  expect(await server.close()).toBe(0);
});

test('a thread actor that throws mid-turn fails only that turn, records it, and its worker keeps serving', async () => {
  const server = await TestServer.start({
    modelUrl: mock.url,
    env: { THREAD_HOST_FAULT_ACTOR_THROW_ON_TEXT: 'fault now', THREAD_HOST_WORKERS: '1', THREAD_HOST_LOG: 'info' },
  });
  const a = (await server.request('thread/start', {})).thread;
  const b = (await server.request('thread/start', {})).thread;
  const { turn } = await server.request('turn/start', { threadId: a.id, input: [{ type: 'text', text: 'fault now' }] });
  const failed = await server.waitForNotification('turn/completed', (p) => p.threadId === a.id);
  const error = { message: 'the thread actor failed during the turn: injected fault: exception in the thread actor', codexErrorInfo: 'other', additionalDetails: null, misalignment: null };
  expect([failed.turn.status, failed.turn.error]).toEqual(['failed', error]);
  // The worker's log names the TypeScript source of the throw, not the bundle's line.
  const logged = await server.waitForLog((l) => l.msg === error.message);
  expect(String(logged.stack).split('\n')[1]).toMatch(/^ {4}at injectTurnFault \(.*\/src\/actors\/faults\.ts:\d+:\d+\)$/);
  // The rollout closes the turn as the client was told.
  const last = JSON.parse(readFileSync(a.path, 'utf8').trimEnd().split('\n').at(-1)!);
  expect([last.payload.type, last.payload.turn_id, last.payload.error]).toEqual(['task_complete', turn.id, { message: error.message, codex_error_info: 'other' }]);

  // The one worker that hosts both threads survived it: the other thread is served, and the
  // same thread takes its next turn.
  await server.request('turn/start', { threadId: b.id, input: [{ type: 'text', text: 'fine' }] });
  expect((await server.waitForNotification('turn/completed', (p) => p.threadId === b.id)).turn.status).toBe('completed');
  await server.request('turn/start', { threadId: a.id, input: [{ type: 'text', text: 'again' }] });
  expect((await server.waitForNotification('turn/completed', (p) => p.threadId === a.id)).turn.status).toBe('completed');
  const read = await server.request('thread/read', { threadId: a.id, includeTurns: true });
  expect(read.thread.turns.map((t: Message) => t.status)).toEqual(['failed', 'completed']);
  expect(await server.close()).toBe(0);
});

/** The nice value of every thread of `pid`, keyed by thread id (Linux /proc). */
function niceByThread(pid: number): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name: state is field 3, nice field 19.
    nice.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return nice;
}

test('the pool workers, the stored-history worker and the line parser run below the main thread’s CPU priority, every other thread at the default', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, env: { THREAD_HOST_WORKERS: '2' } });
  const started = (await server.request('thread/start', {})).thread.id as string;
  const pid = server.child.pid!;
  // Both workers start with the pool (after the first reply); each lowers itself first thing.
  await vi.waitFor(() => expect([...niceByThread(pid).values()].filter((n) => n === 5).length).toBe(2), { timeout: 10_000 });
  // The stored-history worker starts with the first thread/list, and lowers itself before it lists.
  expect((await server.request('thread/list', {})).data).toEqual([]);
  expect([...niceByThread(pid).values()].filter((n) => n === 5).length).toBe(3);
  // The line parser starts with the first line of 64 KiB or more.
  expect(await server.request('thread/loaded/list', { pad: 'x'.repeat(70_000) })).toEqual({ data: [started], nextCursor: null });
  expect([...niceByThread(pid).values()].filter((n) => n === 5).length).toBe(4);
  const nice = niceByThread(pid);
  expect(nice.get(pid)).toBe(0);
  expect([...nice.values()].filter((n) => n !== 0 && n !== 5)).toEqual([]);
  expect(await server.close()).toBe(0);
});
