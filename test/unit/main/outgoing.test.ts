import { describe, expect, it } from 'vitest';
import { ConnectionTable, type Connection } from '../../../src/main/connections.js';
import { Outgoing } from '../../../src/main/outgoing.js';
import { EncodedJson } from '../../../src/main/protocol/encoded-json.js';
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

  it('replies with a result serialized, an absent one as null, an EncodedJson made as text verbatim, and an EncodedJson (whole or within) as its bytes', () => {
    const { connections, received, opened } = table(1);
    const outgoing = new Outgoing(connections, () => 42);
    const id = opened[0]!.id;
    const bytes = Buffer.from('{"thread":{"turns":["é"]}}');
    outgoing.reply(id, 1, { data: [], nextCursor: null });
    outgoing.reply(id, 'two', undefined);
    outgoing.reply(id, 3, new EncodedJson('{"data":["x"],"nextCursor":null}'));
    outgoing.reply(id, 4, new EncodedJson(bytes));
    outgoing.reply(id, 5, { page: new EncodedJson(bytes), more: true });
    const lines = received[0]!.map((message) => (typeof message === 'string' ? message : Buffer.concat(Array.isArray(message) ? message : [message as Buffer]).toString('utf8')));
    expect(lines).toEqual([
      '{"id":1,"result":{"data":[],"nextCursor":null}}',
      '{"id":"two","result":null}',
      '{"id":3,"result":{"data":["x"],"nextCursor":null}}',
      '{"id":4,"result":{"thread":{"turns":["é"]}}}',
      '{"id":5,"result":{"page":{"thread":{"turns":["é"]}},"more":true}}',
    ]);
    // The bytes are sent as they are, not copied.
    expect((received[0]![3] as Buffer[]).includes(bytes)).toBe(true);
  });
});
