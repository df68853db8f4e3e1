// A notification for more connections than one chunk is written to the first chunk at once and
// to the rest one chunk per event-loop iteration, with input handled between chunks; what a
// connection is sent later never overtakes what it still has queued; what waits for the output
// waits for the last chunk.
import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ConnectionTable, type Connection } from '../../../src/main/connections.js';
import { Outgoing } from '../../../src/main/outgoing.js';
import { afterOutputFlushed, ownIteration } from '../../../src/main/scheduling.js';
import { STAGGER_CHUNK } from '../../../src/main/staggered-output.js';

interface Written {
  connection: number;
  text: string;
}

function hostWith(count: number, onWrite: (connection: number) => void = () => undefined): { connections: ConnectionTable; opened: Connection[]; log: Array<Written | string> } {
  const connections = new ConnectionTable();
  const log: Array<Written | string> = [];
  const opened = Array.from({ length: count }, (_, i) => {
    const connection = connections.open((message) => {
      log.push({ connection: i, text: Buffer.isBuffer(message) ? message.toString('utf8') : String(message) });
      onWrite(i);
      return true;
    });
    connection.initialized = true;
    return connection;
  });
  return { connections, opened, log };
}

const statusLine = (status: string) => `{"method":"thread/status/changed","params":{"threadId":"t","status":{"type":"${status}"}},"emittedAtMs":7}`;
const everyone = (count: number, text: string): Written[] => Array.from({ length: count }, (_, connection) => ({ connection, text }));

describe('staggered output', () => {
  it('writes a broadcast to one chunk of connections per iteration, and input that arrives between chunks is handled between them', async () => {
    const count = STAGGER_CHUNK * 2 + 5;
    const { port1, port2 } = new MessageChannel();
    // A request arrives while the second chunk is being written.
    const { connections, log } = hostWith(count, (connection) => connection === STAGGER_CHUNK && port1.postMessage('request'));
    const input = new Promise<void>((resolve) => port2.once('message', () => resolve(void log.push('input'))));
    new Outgoing(connections, () => 7).broadcast('thread/status/changed', { threadId: 't', status: { type: 'idle' } });
    const line = statusLine('idle');
    expect(log).toEqual(everyone(STAGGER_CHUNK, line));
    await input;
    await ownIteration();
    port1.close();
    expect(log).toEqual([...everyone(STAGGER_CHUNK * 2, line), 'input', ...everyone(count, line).slice(STAGGER_CHUNK * 2)]);
  });

  it('writes what a connection still has queued before anything sent to it directly', async () => {
    const count = STAGGER_CHUNK + 2;
    const { connections, opened, log } = hostWith(count);
    const outgoing = new Outgoing(connections, () => 7);
    outgoing.broadcast('thread/status/changed', { threadId: 't', status: { type: 'active' } });
    outgoing.broadcast('thread/status/changed', { threadId: 't', status: { type: 'idle' } });
    outgoing.reply(opened[count - 1]!.id, 1, { data: [], nextCursor: null });
    expect(log.slice(STAGGER_CHUNK * 2)).toEqual([
      { connection: count - 1, text: statusLine('active') },
      { connection: count - 1, text: statusLine('idle') },
      { connection: count - 1, text: '{"id":1,"result":{"data":[],"nextCursor":null}}' },
    ]);
    await ownIteration();
    await ownIteration();
    expect(log.slice(STAGGER_CHUNK * 2 + 3)).toEqual([
      { connection: count - 2, text: statusLine('active') },
      { connection: count - 2, text: statusLine('idle') },
    ]);
  });

  it('drops what was queued for a connection that closed', async () => {
    const { connections, opened, log } = hostWith(STAGGER_CHUNK + 1);
    new Outgoing(connections, () => 7).broadcast('thread/closed', { threadId: 't' });
    connections.close(opened[STAGGER_CHUNK]!.id);
    await ownIteration();
    await ownIteration();
    expect(log).toEqual(everyone(STAGGER_CHUNK, '{"method":"thread/closed","params":{"threadId":"t"},"emittedAtMs":7}'));
  });

  it('runs what waits for the output once the last chunk is written', async () => {
    const count = STAGGER_CHUNK * 3;
    const { connections, log } = hostWith(count);
    new Outgoing(connections, () => 7).broadcast('thread/closed', { threadId: 't' });
    const flushed = new Promise<void>((resolve) => afterOutputFlushed(() => resolve(void log.push('after output'))));
    await flushed;
    expect(log).toEqual([...everyone(count, '{"method":"thread/closed","params":{"threadId":"t"},"emittedAtMs":7}'), 'after output']);
  });
});
