import { MessageChannel } from 'node:worker_threads';
import { afterEach, expect, test, vi } from 'vitest';
import { ActorHost } from '../../../src/actors/actor-host.js';
import { ThreadActor } from '../../../src/actors/thread-actor.js';
import { ephemeralActorInit } from '../../helpers/actor-init.js';

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) channel.port1.close();
});

function hostWithExits(): { host: ActorHost; exits: string[] } {
  const channel = new MessageChannel();
  channels.push(channel);
  const exits: string[] = [];
  return { host: new ActorHost(channel.port1, () => exits.push('exit')), exits };
}

const init = ephemeralActorInit;

test('a host with an actor refuses to retire; once every actor closed it retires, exits after answering, and refuses new actors', async () => {
  const { host, exits } = hostWithExits();
  expect(await host.spawn(init('a'))).toBe(null);
  expect(await host.spawn(init('b'))).toBe(null);
  expect(await host.retire()).toBe('busy');
  expect(await host.close('a')).toBe('closed');
  expect(await host.retire()).toBe('busy');
  expect(await host.close('b')).toBe('closed');
  // No actor entry outlives its close.
  expect(await host.ping()).toBe(0);
  expect(await host.retire()).toBe('retiring');
  // The answer goes out first; the worker exits in the next iteration of the event loop.
  expect(exits).toEqual([]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(exits).toEqual(['exit']);
  await expect(host.spawn(init('c'))).rejects.toThrow('this pool worker is retiring');
  expect(await host.ping()).toBe(0);
});

test('closeMany answers each thread on its own, in order: a close that fails fails alone, an unknown thread is not found', async () => {
  const { host } = hostWithExits();
  for (const id of ['a', 'b', 'c']) expect(await host.spawn(init(id))).toBe(null);
  const close = ThreadActor.prototype.close;
  // The second actor asked (b's) fails to close; the others close as they would.
  const spy = vi
    .spyOn(ThreadActor.prototype, 'close')
    .mockImplementationOnce(function (this: ThreadActor) {
      return close.call(this);
    })
    .mockImplementationOnce(() => Promise.reject(new Error('disk gone')));
  try {
    expect(await host.closeMany(['a', 'b', 'gone', 'c'])).toEqual(['closed', 'failed', 'notFound', 'closed']);
  } finally {
    spy.mockRestore();
  }
  // No actor entry outlives its close, failed or not.
  expect(await host.ping()).toBe(0);
});
