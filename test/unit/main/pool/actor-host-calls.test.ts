// The worker's ActorHost methods as the main thread calls them: read from the comlink remote
// once, then called over a real MessageChannel.
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, expect, test } from 'vitest';
import type { ActorHostApi, ActorInit, CompactCommand, PostedTurnCommand, SteerCommand, UserShellCommand } from '../../../../src/common/actor-messages.js';
import { actorHostCalls } from '../../../../src/main/pool/actor-host-calls.js';
import type { ToolCallItem } from '../../../../src/common/wire-types.js';

const channels: MessageChannel[] = [];
afterEach(() => {
  for (const channel of channels.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

/** A host that records each call and answers with what its method returns. */
function recordingHost(): { host: ActorHostApi; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const host: ActorHostApi = {
    spawn: async (init) => (calls.push(['spawn', init.threadId]), null),
    startTurn: async (threadId, command) => void calls.push(['startTurn', threadId, command.turnId]),
    steerTurn: async (threadId, command) => void calls.push(['steerTurn', threadId, command.turnId]),
    startCompaction: async (threadId, command) => void calls.push(['startCompaction', threadId, command.turnId]),
    interrupt: async (threadId, turnId) => (calls.push(['interrupt', threadId, turnId]), 'interrupting'),
    answerTool: async (threadId, answer) => (calls.push(['answerTool', threadId, answer.callId]), 'answered'),
    recordItem: async (threadId, turnId, item) => (calls.push(['recordItem', threadId, turnId, item.id]), 'recorded'),
    answerHostTools: async (threadId, turnId) => (calls.push(['answerHostTools', threadId, turnId]), 'late'),
    recordUserShell: async (threadId, command) => void calls.push(['recordUserShell', threadId, command.turnId]),
    revokeWriter: async (threadId, reason) => (calls.push(['revokeWriter', threadId, reason]), 'revoked'),
    close: async (threadId) => (calls.push(['close', threadId]), 'closed'),
    closeMany: async (threadIds) => (calls.push(['closeMany', ...threadIds]), threadIds.map((id) => (id === 'gone' ? 'notFound' : 'closed'))),
    ping: async () => (calls.push(['ping']), 7),
    retire: async () => (calls.push(['retire']), 'busy'),
  };
  return { host, calls };
}

test('every ActorHost method is read once and reaches the worker, in order, with its answer back', async () => {
  const channel = new MessageChannel();
  channels.push(channel);
  const { host, calls } = recordingHost();
  Comlink.expose(host, nodeEndpoint(channel.port2 as never));
  const remote = Comlink.wrap<ActorHostApi>(nodeEndpoint(channel.port1 as never));
  const { api, release } = actorHostCalls(remote, Comlink.releaseProxy);

  expect(Object.keys(api)).toEqual(['spawn', 'startTurn', 'steerTurn', 'startCompaction', 'interrupt', 'answerTool', 'recordItem', 'answerHostTools', 'recordUserShell', 'revokeWriter', 'close', 'closeMany', 'ping', 'retire']);
  expect(Object.isFrozen(api)).toBe(true);
  const answers = [
    await api.spawn({ threadId: 't1' } as ActorInit),
    await api.startTurn('t1', { turnId: 'u1' } as PostedTurnCommand),
    await api.steerTurn('t1', { turnId: 'u1' } as SteerCommand),
    await api.startCompaction('t1', { turnId: 'c1' } as CompactCommand),
    await api.interrupt('t1', 'u1'),
    await api.answerTool('t1', { turnId: 'u1', callId: 'call-1', output: 'out', outputId: 'fco_1', item: null }),
    await api.recordItem('t1', 'u0', { id: 'call-0' } as ToolCallItem),
    await api.answerHostTools('t1', 'u1', []),
    await api.recordUserShell('t1', { turnId: 's1' } as UserShellCommand),
    await api.revokeWriter('t1', 'lock lost'),
    await api.close('t1'),
    await api.close('t2'),
    await api.closeMany(['t3', 'gone', 't4']),
    await api.ping(),
    await api.retire(),
  ];
  expect(answers).toEqual([null, undefined, undefined, undefined, 'interrupting', 'answered', 'recorded', 'late', undefined, 'revoked', 'closed', 'closed', ['closed', 'notFound', 'closed'], 7, 'busy']);
  expect(calls).toEqual([
    ['spawn', 't1'],
    ['startTurn', 't1', 'u1'],
    ['steerTurn', 't1', 'u1'],
    ['startCompaction', 't1', 'c1'],
    ['interrupt', 't1', 'u1'],
    ['answerTool', 't1', 'call-1'],
    ['recordItem', 't1', 'u0', 'call-0'],
    ['answerHostTools', 't1', 'u1'],
    ['recordUserShell', 't1', 's1'],
    ['revokeWriter', 't1', 'lock lost'],
    ['close', 't1'],
    ['close', 't2'],
    ['closeMany', 't3', 'gone', 't4'],
    ['ping'],
    ['retire'],
  ]);

  // Released, every call rejects at once instead of posting to a closed port and hanging.
  release();
  release();
  await expect(api.close('t3')).rejects.toThrow("the worker's ActorHost was released; close not sent");
  await expect(api.ping()).rejects.toThrow("the worker's ActorHost was released; ping not sent");
  expect(calls).toHaveLength(15);
});

test('a call in flight when the link is released rejects instead of waiting forever', async () => {
  const channel = new MessageChannel();
  channels.push(channel);
  const { host } = recordingHost();
  let answer: (value: number) => void = () => undefined;
  let reached: () => void = () => undefined;
  const pingReached = new Promise<void>((resolve) => (reached = resolve));
  const ping = () =>
    new Promise<number>((resolve) => {
      answer = resolve;
      reached();
    });
  Comlink.expose({ ...host, ping }, nodeEndpoint(channel.port2 as never));
  const { api, release } = actorHostCalls(Comlink.wrap<ActorHostApi>(nodeEndpoint(channel.port1 as never)), Comlink.releaseProxy);
  const pinging = api.ping();
  await pingReached; // the ping is in the host, unanswered
  release();
  await expect(pinging).rejects.toThrow("the worker's ActorHost was released before it answered");
  answer(1); // a late answer changes nothing
});

test('the same callable serves every call: no proxy is read from the remote per call', () => {
  const reads: PropertyKey[] = [];
  const remote = new Proxy({} as Comlink.Remote<ActorHostApi>, {
    get(_target, method) {
      reads.push(method);
      return () => Promise.resolve(method);
    },
  });
  const { api } = actorHostCalls(remote, Comlink.releaseProxy);
  void api.close('a');
  void api.close('b');
  void api.ping();
  expect(reads).toEqual(['spawn', 'startTurn', 'steerTurn', 'startCompaction', 'interrupt', 'answerTool', 'recordItem', 'answerHostTools', 'recordUserShell', 'revokeWriter', 'close', 'closeMany', 'ping', 'retire']);
});
