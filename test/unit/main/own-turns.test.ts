// Background steps take an event-loop turn each: input that arrives while one runs is handled
// before the next, which two setImmediate callbacks queued together do not give.
import { MessageChannel } from 'node:worker_threads';
import { expect, test } from 'vitest';
import { inOwnTurn, ownTurn } from '../../../src/main/own-turns.js';

/** The order of two steps queued in one turn and a message posted by the first. */
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
  expect(await orderWith(inOwnTurn)).toEqual(['first', 'message', 'second']);
  // What setImmediate alone does, for contrast.
  expect(await orderWith((step) => setImmediate(step))).toEqual(['first', 'second', 'message']);
});

test('ownTurn resolves after the steps queued before it, in order', async () => {
  const order: string[] = [];
  inOwnTurn(() => void order.push('a'));
  const turn = ownTurn().then(() => void order.push('turn'));
  inOwnTurn(() => void order.push('b'));
  await turn;
  await ownTurn();
  expect(order).toEqual(['a', 'turn', 'b']);
});
