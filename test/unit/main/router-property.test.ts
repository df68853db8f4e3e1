// Random input at the router, in process: whatever arrives, handleLine never throws, no
// promise is left rejected and unhandled, every request the router accepted settles (no
// hang), and every line written back is one well-formed reply. The host context is real
// where the router's decisions live (connections, outgoing, thread directory) and stubbed
// where it would reach a worker, a lock or the model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { Connection } from '../../../src/main/connections.js';
import { ErrorCode } from '../../../src/common/errors.js';
import { parseJson, toPlainJson } from '../../../src/common/json-text.js';
import type { WireMessage } from '../../../src/main/transport/transport.js';
import { Router } from '../../../src/main/router.js';
import { stubHostContext } from '../../helpers/stub-host-context.js';

const METHODS = ['initialize', 'thread/start', 'thread/resume', 'thread/unsubscribe', 'thread/loaded/list', 'thread/read', 'thread/list', 'turn/start', 'turn/interrupt'];
const FIELDS = ['clientInfo', 'capabilities', 'name', 'version', 'threadId', 'turnId', 'input', 'type', 'text', 'text_elements', 'cursor', 'limit', 'ephemeral', 'model', 'sandbox', 'approvalPolicy', 'config', 'cwd', 'includeTurns', 'excludeTurns', 'sortKey', 'sourceKinds', 'path', '__proto__', 'constructor'];
const THREAD_ID = '01a23644-4410-7392-9ce9-3a08921e3af1';
const MAX_IN_FLIGHT = 8;
const SETTLE_MS = 10_000; // generous: a loaded CI machine can be slow to answer a disk read

let home: string;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'router-property-'));
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  rmSync(home, { recursive: true, force: true });
});
afterEach(() => expect(unhandled).toEqual([]));

/** A router over a real directory, with a worker pool, locks and supervisor that always succeed at once. */
function harness(): { router: Router; connection: Connection; written: string[]; logs: string[] } {
  const written: string[] = [];
  const logs: string[] = [];
  const api = { startTurn: async () => undefined, interrupt: async () => undefined, close: async () => undefined };
  const ctx = stubHostContext(home, {
    log: (level: string, message: string) => logs.push(`${level}: ${message}`),
    pool: { spawn: async () => null, linkOf: () => ({ api }), forget: () => undefined },
  });
  // A message is text, bytes, or pieces of bytes (a result serialized in a worker).
  const text = (message: WireMessage): string => (typeof message === 'string' ? message : Buffer.concat(Array.isArray(message) ? message : [message as Buffer]).toString('utf8'));
  const connection = ctx.connections.open((message) => (written.push(text(message)), true));
  return { router: new Router(ctx, MAX_IN_FLIGHT), connection, written, logs };
}

const json = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.double(), fc.constant(null), fc.boolean(), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String));
const params = fc.oneof(
  json,
  fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(json, fc.constant(THREAD_ID), fc.constant([{ type: 'text', text: 'hi' }])), { maxKeys: 4 }),
);
/** A request-shaped line: id and params of any type, a served or random method. */
const requestLine = fc
  .record({ id, method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 12 })), params }, { requiredKeys: ['method'] })
  .map((fields) => JSON.stringify(fields).replace(/"id":"(-?\d+)"/, '"id":$1'));
/** A valid line with one character replaced, inserted or dropped. */
const mutated = fc.tuple(requestLine, fc.nat(), fc.string({ minLength: 0, maxLength: 1 })).map(([line, at, char]) => {
  const i = at % (line.length + 1);
  return line.slice(0, i) + char + line.slice(i + 1);
});
const nested = fc.tuple(fc.integer({ min: 100, max: 5_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => open.repeat(depth));
const line = fc.oneof(requestLine, requestLine, mutated, fc.string({ maxLength: 40 }), fc.json({ maxDepth: 4 }), nested);

async function settled(connection: Connection): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  while (connection.inFlight > 0) {
    if (Date.now() > deadline) throw new Error(`${connection.inFlight} request(s) still in flight after ${SETTLE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('random lines never throw, never leave a rejection unhandled, all settle, and each reply is one well-formed answer', async () => {
  await fc.assert(
    fc.asyncProperty(fc.boolean(), fc.array(line, { maxLength: 25 }), async (initializeFirst, lines) => {
      const { router, connection, written, logs } = harness();
      if (initializeFirst) router.handleLine(connection, JSON.stringify({ id: 'init', method: 'initialize', params: { clientInfo: { name: 'p', version: '1' } } }));
      for (const text of lines) expect(() => router.handleLine(connection, text)).not.toThrow();
      await settled(connection);
      for (const reply of written) {
        const message = parseJson(reply).value as Record<string, unknown>;
        if ('method' in message) {
          expect(Object.keys(message)).toEqual(['method', 'params', 'emittedAtMs']); // thread/started and the like
          continue;
        }
        const shape = 'result' in message ? 'result' : Object.keys((message.error ?? {}) as object).sort().join(',');
        expect({ keys: Object.keys(message).sort(), shape }).toEqual(
          'result' in message ? { keys: ['id', 'result'], shape: 'result' } : { keys: ['error', 'id'], shape: 'code,message' },
        );
        if ('error' in message) expect(Object.values(ErrorCode)).toContain(Number((message.error as { code: unknown }).code));
      }
      // Only the router's own catch-alls log at error level; none may have fired.
      expect(logs.filter((entry) => entry.startsWith('error: failed'))).toEqual([]);
    }),
    { numRuns: 300 },
  );
});

test('a request past the in-flight limit gets the overload error and the counter returns to zero', async () => {
  const { router, connection, written } = harness();
  router.handleLine(connection, JSON.stringify({ id: 0, method: 'initialize', params: { clientInfo: { name: 'p', version: '1' } } }));
  // thread/read of an unknown id looks on disk, so each one stays in flight for a while.
  for (let i = 1; i <= MAX_IN_FLIGHT + 2; i += 1) router.handleLine(connection, JSON.stringify({ id: i, method: 'thread/read', params: { threadId: THREAD_ID } }));
  expect(written.slice(1)).toEqual([
    '{"error":{"code":-32001,"message":"Server overloaded; retry later."},"id":9}',
    '{"error":{"code":-32001,"message":"Server overloaded; retry later."},"id":10}',
  ]);
  await settled(connection);
  expect(written.slice(3).sort()).toEqual(
    Array.from({ length: MAX_IN_FLIGHT }, (_, i) => `{"error":{"code":-32600,"message":"thread not loaded: ${THREAD_ID}"},"id":${i + 1}}`).sort(),
  );
});

/** The router's JSON reading, or the text of its syntax error. */
function read(text: string): { value: unknown } | { error: true } {
  try {
    return { value: toPlainJson(parseJson(text).value) };
  } catch {
    return { error: true };
  }
}

test('the router reads every JSON text JSON.parse reads, to the same value, up to the nesting limit', () => {
  const spaced = fc.tuple(fc.jsonValue({ maxDepth: 6, stringUnit: 'grapheme' }), fc.constantFrom(undefined, 1, '\t', ' \r\n'));
  fc.assert(
    fc.property(spaced, ([value, space]) => {
      const text = JSON.stringify(value, null, space);
      expect(read(text)).toEqual({ value: JSON.parse(text) });
    }),
    { numRuns: 1_000 },
  );
});

test('whatever the router accepts, JSON.parse accepts too, with the same value', () => {
  const text = fc.oneof(mutated, fc.string({ maxLength: 30 }), fc.json({ maxDepth: 3 }).chain((json) => fc.tuple(fc.constant(json), fc.nat(), fc.constantFrom('', ' ', '0', '.', 'e', '-', '"', '\\', ',', ']', '}')).map(([t, at, c]) => t.slice(0, at % (t.length + 1)) + c + t.slice(at % (t.length + 1)))));
  fc.assert(
    fc.property(text, (candidate) => {
      const mine = read(candidate);
      if ('value' in mine) expect(mine.value).toEqual(JSON.parse(candidate));
    }),
    { numRuns: 2_000 },
  );
});
