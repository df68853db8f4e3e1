import { describe, expect, it } from 'vitest';
import { ConnectionTable, type Connection } from '../../../src/main/connections.js';
import { Outgoing } from '../../../src/main/outgoing.js';
import type { WireMessage } from '../../../src/main/transport/transport.js';

function table(count: number): { connections: ConnectionTable; received: WireMessage[][]; opened: Connection[] } {
  const connections = new ConnectionTable();
  const received: WireMessage[][] = [];
  const opened: Connection[] = [];
  for (let i = 0; i < count; i += 1) {
    const inbox: WireMessage[] = [];
    received.push(inbox);
    const connection = connections.open((message) => (inbox.push(message), true));
    connection.initialized = true;
    opened.push(connection);
  }
  return { connections, received, opened };
}

const LINE = '{"method":"thread/status/changed","params":{"threadId":"t","status":{"type":"idle"}},"emittedAtMs":42}';

describe('Outgoing', () => {
  it('serializes a broadcast once and encodes it to bytes once for every receiver after the first', () => {
    const { connections, received } = table(3);
    new Outgoing(connections, () => 42).broadcast('thread/status/changed', { threadId: 't', status: { type: 'idle' } });
    expect(received[0]).toEqual([LINE]);
    expect(received[1]).toEqual([Buffer.from(LINE)]);
    // The same bytes, not a copy per connection.
    expect(received[2]![0]).toBe(received[1]![0]);
  });

  it('sends a notification to one subscriber as text, and skips connections that opted out or are not initialized', () => {
    const { connections, received, opened } = table(3);
    opened[1]!.optOut = new Set(['thread/status/changed']);
    opened[2]!.initialized = false;
    new Outgoing(connections, () => 42).notifyMany(
      opened.map((c) => c.id),
      'thread/status/changed',
      { threadId: 't', status: { type: 'idle' } },
    );
    expect(received).toEqual([[LINE], [], []]);
  });

  it('does not serialize a notification that no connection receives', () => {
    const { connections } = table(0);
    let stamped = 0;
    new Outgoing(connections, () => (stamped += 1)).broadcast('thread/closed', { threadId: 't' });
    expect(stamped).toBe(0);
  });
});
