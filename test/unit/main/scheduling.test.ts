// Background steps take an event-loop iteration each: input that arrives while one runs is handled
// before the next, which two setImmediate callbacks queued together do not give.
import { MessageChannel } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { afterOutputFlushed, atEndOfTask, atIterationEnd, inOwnIteration, ownIteration } from '../../../src/main/scheduling.js';

/** The order of two steps queued in one iteration and a message posted by the first. */
async function orderWith(queue: (step: () => void) => void): Promise<string[]> {
  const order: string[] = [];
  const { port1, port2 } = new MessageChannel();
  const received = new Promise<void>((resolve) => port2.once('message', () => resolve(void order.push('message'))));
  const second = new Promise<void>((resolve) => {
    queue(() => {
      order.push('first');
      port1.postMessage('input');
    });
    queue(() => resolve(void order.push('second')));
  });
  await Promise.all([received, second]);
  port1.close();
  return order;
}

test('a message that arrives during one step is handled before the next step', async () => {
  expect(await orderWith(inOwnIteration)).toEqual(['first', 'message', 'second']);
  // What setImmediate alone does, for contrast.
  expect(await orderWith((step) => setImmediate(step))).toEqual(['first', 'second', 'message']);
});

test('ownIteration resolves after the steps queued before it, in order', async () => {
  const order: string[] = [];
  inOwnIteration(() => void order.push('a'));
  const own = ownIteration().then(() => void order.push('own'));
  inOwnIteration(() => void order.push('b'));
  await own;
  await ownIteration();
  expect(order).toEqual(['a', 'own', 'b']);
});

test('what waits for the output runs after every flush of the iteration, even one queued after it', async () => {
  const order: string[] = [];
  const done = new Promise<void>((resolve) => afterOutputFlushed(() => resolve(void order.push('after output'))));
  const flush = () => void order.push('flush');
  atIterationEnd(flush);
  // One flush per flusher, however many of its outputs were written to.
  atIterationEnd(flush);
  atIterationEnd(() => void order.push('second flusher'));
  await done;
  expect(order).toEqual(['flush', 'second flusher', 'after output']);
});

test('what waits for the end of the task runs after the synchronous work, before the iteration\'s end', async () => {
  const order: string[] = [];
  const end = new Promise<void>((resolve) => afterOutputFlushed(() => resolve(void order.push('iteration end'))));
  atEndOfTask(() => void order.push('end of task'));
  order.push('synchronous');
  await end;
  expect(order).toEqual(['synchronous', 'end of task', 'iteration end']);
});
