// The pool workers run below the main thread's CPU priority (src/common/thread-priority.ts);
// nothing else may. libuv's file threads take the priority of the thread that creates them, so
// this checks, after a turn has written its rollout from a pool worker, that the only lowered
// threads of the process are the pool's workers (src/main/file-threads.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { WORKER_NICENESS } from '../../src/common/thread-priority.js';
import { startMockModel, type MockModel } from '../../src/main/commands/mock-model/mock-model-server.js';
import { TestServer } from '../helpers/test-server.js';

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel({ reply: 'Done' });
});
afterAll(() => mock.close());

/** The nice value of every thread of `pid`, by thread id (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test('after a turn, only the two pool workers run at a lowered priority', async () => {
  const server = await TestServer.start({ modelUrl: mock.url, args: ['--workers', '2'] });
  const { thread } = await server.request('thread/start', {});
  await server.request('turn/start', { threadId: thread.id, input: [{ type: 'text', text: 'hello' }] });
  await server.waitForNotification('turn/completed');
  const lowered = threadNiceness(server.child.pid!).filter((nice) => nice === WORKER_NICENESS);
  expect(lowered).toEqual([WORKER_NICENESS, WORKER_NICENESS]);
  await server.close();
});
