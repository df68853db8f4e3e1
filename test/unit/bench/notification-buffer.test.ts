// Notifications filed by (method, thread id): waiters first, then a bounded buffer.
import { expect, test } from 'vitest';
import { NotificationBuffer, notificationKey } from '../../../bench/lib/notification-buffer.js';

const closed = (threadId: string) => notificationKey('thread/closed', threadId);

test('a waiter gets the next notification for its key; others are buffered for later waits', async () => {
  const buffer = new NotificationBuffer();
  const { arrival } = buffer.wait(closed('a'));
  buffer.deliver('thread/closed', { threadId: 'b' }, 1);
  buffer.deliver('thread/closed', { threadId: 'a' }, 2);
  buffer.deliver('thread/started', { thread: { id: 'a' } }, 3);
  expect(await arrival).toEqual({ params: { threadId: 'a' }, at: 2 });
  expect(await buffer.wait(closed('b')).arrival).toEqual({ params: { threadId: 'b' }, at: 1 });
  expect(await buffer.wait(notificationKey('thread/started', 'a')).arrival).toEqual({ params: { thread: { id: 'a' } }, at: 3 });
});

test('buffered notifications of one key are taken oldest first, each once', async () => {
  const buffer = new NotificationBuffer();
  buffer.deliver('turn/completed', { threadId: 'a', n: 1 }, 1);
  buffer.deliver('turn/completed', { threadId: 'a', n: 2 }, 2);
  const key = notificationKey('turn/completed', 'a');
  expect((await buffer.wait(key).arrival).params.n).toBe(1);
  expect((await buffer.wait(key).arrival).params.n).toBe(2);
  const third = buffer.wait(key);
  buffer.deliver('turn/completed', { threadId: 'a', n: 3 }, 3);
  expect((await third.arrival).params.n).toBe(3);
});

test('a cancelled wait does not swallow the notification', async () => {
  const buffer = new NotificationBuffer();
  buffer.wait(closed('a')).cancel();
  buffer.deliver('thread/closed', { threadId: 'a' }, 5);
  expect(await buffer.wait(closed('a')).arrival).toEqual({ params: { threadId: 'a' }, at: 5 });
});

test('with keepUnclaimed false a notification nobody waits for is dropped; a waiter still gets the next one', async () => {
  const buffer = new NotificationBuffer({ keepUnclaimed: false });
  buffer.deliver('thread/closed', { threadId: 'a' }, 1);
  const seen: unknown[] = [];
  const { arrival } = buffer.wait(closed('a'));
  void arrival.then((a) => seen.push(a));
  await new Promise((resolve) => setImmediate(resolve));
  expect(seen).toEqual([]);
  buffer.deliver('thread/closed', { threadId: 'a' }, 2);
  expect(await arrival).toEqual({ params: { threadId: 'a' }, at: 2 });
});

test('past 50,000 unclaimed notifications the oldest go first, consumed ones are skipped', async () => {
  const buffer = new NotificationBuffer();
  buffer.deliver('thread/closed', { threadId: 'taken' }, 0);
  await buffer.wait(closed('taken')).arrival;
  for (let i = 0; i <= 50_000; i += 1) buffer.deliver('thread/closed', { threadId: `t${i}` }, i);
  let first: unknown = 'still waiting';
  void buffer.wait(closed('t0')).arrival.then((a) => (first = a));
  await Promise.resolve();
  expect(first).toBe('still waiting'); // t0 was evicted
  expect(await buffer.wait(closed('t1')).arrival).toEqual({ params: { threadId: 't1' }, at: 1 });
  expect(await buffer.wait(closed('t50000')).arrival).toEqual({ params: { threadId: 't50000' }, at: 50_000 });
});
