import { MessageChannel } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import { ActorHost } from '../../../src/actors/actor-host.js';
import type { ActorInit } from '../../../src/common/actor-messages.js';

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

const init = (threadId: string): ActorInit => ({
  threadId,
  rolloutPath: null,
  resume: false,
  writerLease: null,
  historyMode: 'legacy',
  fence: new SharedArrayBuffer(4),
  session: { createdAtMs: 0, originator: 'test', cliVersion: '0.1.0', source: 'vscode' },
  settings: {
    model: 'thread-host-echo',
    modelProvider: 'embedded',
    cwd: '/',
    approvalPolicy: 'never',
    approvalsReviewer: 'user',
    sandboxMode: 'read-only',
    baseInstructions: null,
    developerInstructions: null,
    effort: null,
  },
  provider: { kind: 'embedded', id: 'embedded', name: 'embedded', apiKey: null },
  userAgent: 'test',
});

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
  // The answer goes out first; the worker exits on the next turn of the event loop.
  expect(exits).toEqual([]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(exits).toEqual(['exit']);
  await expect(host.spawn(init('c'))).rejects.toThrow('this pool worker is retiring');
  expect(await host.ping()).toBe(0);
});
