// The client library's connection over an in-memory transport: replies matched by id, error
// replies as RpcReplyError, unclaimed messages waited for by predicate, deadlines, every open
// wait failed at once when the peer goes away, and server requests refused when asked.
import { describe, expect, test } from 'vitest';
import type { MessageTransport } from '../../../src/client/message-transport.js';
import { RpcConnection, type RpcConnectionOptions } from '../../../src/client/rpc-connection.js';
import { RpcReplyError } from '../../../src/client/rpc-messages.js';

/** A transport whose peer is the test: `sent` holds what the client wrote, `push` delivers a text. */
function memoryPeer(options: RpcConnectionOptions = {}) {
  const sent: string[] = [];
  let deliver: (text: string) => void = () => undefined;
  let end: (why: string) => void = () => undefined;
  const transport: MessageTransport = {
    reader: {
      listen: (onText, onClose) => {
        deliver = onText;
        end = onClose;
      },
    },
    writer: {
      write: (text) => sent.push(text),
      encode: (text) => Buffer.from(text),
      writeEncoded: (frame) => sent.push(frame.toString()),
    },
    close: async () => end('closed by the client'),
  };
  const connection = new RpcConnection(transport, options);
  return { connection, sent, push: (message: unknown) => deliver(JSON.stringify(message)), end: (why: string) => end(why) };
}

describe('RpcConnection', () => {
  test('matches replies by id, whatever their order, and leaves out absent params', async () => {
    const { connection, sent, push } = memoryPeer();
    const first = connection.request('a/first');
    const second = connection.request('a/second', { n: 2 });
    push({ id: 1, result: { which: 'second' } });
    push({ id: 0, result: { which: 'first' } });
    expect(await Promise.all([first, second])).toEqual([{ which: 'first' }, { which: 'second' }]);
    expect(sent).toEqual(['{"id":0,"method":"a/first"}', '{"id":1,"method":"a/second","params":{"n":2}}']);
  });

  test('throws an error reply as RpcReplyError with its code, message and data', async () => {
    const { connection, push } = memoryPeer();
    const reply = connection.request('thread/start', {});
    push({ id: 0, error: { code: -32001, message: 'host is full', data: { reason: 'hostFull' } } });
    const error = await reply.catch((e: unknown) => e);
    expect(error).toEqual(new RpcReplyError(-32001, 'host is full', { reason: 'hostFull' }));
    expect(error).toBeInstanceOf(RpcReplyError);
  });

  test('requestRaw resolves with the whole reply, an error reply included', async () => {
    const { connection, push } = memoryPeer();
    const reply = connection.requestRaw('m', {});
    push({ id: 0, error: { code: -32600, message: 'bad' } });
    expect(await reply).toEqual({ id: 0, error: { code: -32600, message: 'bad' } });
  });

  test('keeps unclaimed messages and hands each to the first wait that matches it', async () => {
    const { connection, push } = memoryPeer();
    push({ method: 'turn/started', params: { threadId: 't1' } });
    push({ method: 'turn/completed', params: { threadId: 't1' } });
    push({ id: 'hand-written', result: {} });
    const later = connection.waitForNotification('turn/completed', (p) => p.threadId === 't2');
    push({ method: 'turn/completed', params: { threadId: 't2' } });
    expect(await connection.waitForNotification('turn/completed')).toEqual({ threadId: 't1' });
    expect(await later).toEqual({ threadId: 't2' });
    expect(await connection.waitFor((m) => m.id === 'hand-written')).toEqual({ id: 'hand-written', result: {} });
    expect(await connection.waitFor((m) => m.method === 'turn/started')).toEqual({ method: 'turn/started', params: { threadId: 't1' } });
  });

  test('drops unclaimed messages when told not to keep them', async () => {
    const { connection, push } = memoryPeer({ keepUnclaimed: false });
    push({ method: 'n', params: {} });
    const error = await connection.waitForNotification('n', () => true, 20).catch((e: Error) => e.message);
    expect(error).toBe('notification n: no answer within 20 ms');
  });

  test('fails a wait at its deadline with the diagnostics, and ignores the reply that comes after', async () => {
    const { connection, push } = memoryPeer({ diagnostics: () => 'stderr: gone' });
    const error = await connection.request('slow', {}, 20).catch((e: Error) => e.message);
    expect(error).toBe('reply to slow #0: no answer within 20 ms; stderr: gone');
    push({ id: 0, result: {} });
    expect(await connection.waitFor((m) => m.id === 0, 20)).toEqual({ id: 0, result: {} });
  });

  test('fails every open wait at once when the peer goes away, and every later one too', async () => {
    const { connection, end } = memoryPeer();
    const waits = [connection.request('a', {}, 60_000), connection.waitForNotification('b', () => true, 60_000), connection.waitFor(() => true, 60_000, 'anything')];
    end('server exited (1)');
    expect(await Promise.all(waits.map((w) => w.catch((e: Error) => e.message)))).toEqual([
      'reply to a #0: server exited (1)',
      'notification b: server exited (1)',
      'anything: server exited (1)',
    ]);
    expect(await connection.request('c', {}, 60_000).catch((e: Error) => e.message)).toBe('reply to c #1: server exited (1)');
    expect(await connection.ended).toBe('server exited (1)');
  });

  test('refuses server requests when asked, and keeps them otherwise', async () => {
    const refusing = memoryPeer({ refuseServerRequests: true });
    refusing.push({ id: 'approve-1', method: 'item/commandExecution/requestApproval', params: {} });
    expect(refusing.sent).toEqual(['{"id":"approve-1","error":{"code":-32601,"message":"this client does not serve requests"}}']);
    const keeping = memoryPeer();
    keeping.push({ id: 'approve-1', method: 'item/commandExecution/requestApproval', params: {} });
    expect(keeping.sent).toEqual([]);
    expect(await keeping.connection.waitFor((m) => m.id === 'approve-1')).toEqual({ id: 'approve-1', method: 'item/commandExecution/requestApproval', params: {} });
  });

  test('stamps each message before dispatch, traces both directions, and reports what is not a JSON object', async () => {
    const { connection, push } = memoryPeer();
    const traced: string[] = [];
    const seen: unknown[] = [];
    const unparsed: string[] = [];
    connection.trace = (direction, text) => traced.push(`${direction} ${text}`);
    connection.onMessage = (message, at) => seen.push([message, typeof at]);
    connection.onUnparsed = (text) => unparsed.push(text);
    const reply = connection.requestTimed('m', {});
    push({ id: 0, result: 7 });
    push(42);
    const { result, at } = await reply;
    expect({ result, at: typeof at }).toEqual({ result: 7, at: 'number' });
    expect(traced).toEqual(['-> {"id":0,"method":"m","params":{}}', '<- {"id":0,"result":7}', '<- 42']);
    expect(seen).toEqual([[{ id: 0, result: 7 }, 'number']]);
    expect(unparsed).toEqual(['42']);
  });

  test('prepare frames the request at once and sends it only when called', async () => {
    const { connection, sent, push } = memoryPeer();
    const send = connection.prepare('big', { pad: 'x' });
    expect(sent).toEqual([]);
    const reply = send();
    expect(sent).toEqual(['{"id":0,"method":"big","params":{"pad":"x"}}']);
    push({ id: 0, result: { ok: true } });
    expect((await reply).result).toEqual({ ok: true });
  });
});
