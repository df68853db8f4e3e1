// A parsed line that crosses a thread boundary (structured clone, as postMessage does) must
// arrive as exactly what parsing it on this thread gives: the same value, JsonNumbers as
// JsonNumbers, and duplicate keys on the same objects.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { JsonNumber } from '../../../src/common/json-text.js';
import { parseLine, type LineOutcome } from '../../../src/common/line-outcome.js';
import { fromTransfer, toTransfer, transferList, utf8Of } from '../../../src/common/parsed-json-transfer.js';
import { ENCODE_IN_WORKER_CHARS } from '../../../src/common/encoded-content.js';
import { comparable, jsonLine } from '../../helpers/json-lines.js';

/** parseLine's outcome as the main thread gets it from the line-parser worker. */
function acrossThreads(text: string): LineOutcome {
  const outcome = parseLine(text);
  if (outcome.kind !== 'parsed') return structuredClone(outcome);
  return { kind: 'parsed', parsed: fromTransfer(structuredClone(toTransfer(outcome.parsed))) };
}

describe('parsed-json transfer', () => {
  test('any line reads the same after a structured clone as parsed in place', () => {
    fc.assert(
      fc.property(jsonLine, (text) => {
        expect(comparable(acrossThreads(text))).toEqual(comparable(parseLine(text)));
      }),
      { numRuns: 2_000 },
    );
  });

  test('a request with duplicated id, method and params keys keeps them on the right objects', () => {
    const text = '{"id":1,"params":null,"method":"a","id":2,"method":"b","params":{"x":1.0,"x":[9223372036854775807,1e400],"__proto__":-0}}';
    const { value, duplicateKeys } = fromTransfer(structuredClone(toTransfer(parseJsonOf(text))));
    const params = withProto({ x: [new JsonNumber('9223372036854775807'), new JsonNumber('1e400')] }, new JsonNumber('-0'));
    expect(value).toStrictEqual({ id: 2, method: 'b', params });
    expect([...duplicateKeys.values()].map((keys) => [...keys])).toEqual([['id', 'method', 'params'], ['x']]);
    const [outer, inner] = [...duplicateKeys.keys()];
    expect(outer).toBe(value);
    expect(inner).toBe((value as { params: object }).params);
  });

  test('a large string also crosses as its UTF-8 bytes, transferred, given once to whoever asks for its place', () => {
    const big = '"✓" 🚀 café\n'.repeat(ENCODE_IN_WORKER_CHARS / 8);
    const small = 'hello';
    const sent = toTransfer(parseJsonOf(JSON.stringify({ input: [{ text: big }, { text: small }] })));
    const buffers = transferList(sent);
    const { value } = fromTransfer(structuredClone(sent, { transfer: buffers }));
    const [first, second] = (value as { input: Array<{ text: string }> }).input;
    const utf8 = utf8Of(first!, 'text');
    expect({
      detachedHere: buffers.map((buffer) => buffer.byteLength),
      text: first!.text === big,
      bytes: Buffer.from(utf8!).toString('utf8') === big,
      again: utf8Of(first!, 'text'),
      // A small string is not worth it.
      small: [utf8Of(second!, 'text'), second!.text],
    }).toEqual({ detachedHere: [0], text: true, bytes: true, again: undefined, small: [undefined, small] });
  });

  test('a top-level number, which has no container, comes back a JsonNumber', () => {
    expect(fromTransfer(structuredClone(toTransfer(parseJsonOf('1.0'))))).toStrictEqual({ value: new JsonNumber('1.0'), duplicateKeys: new Map() });
  });
});

function parseJsonOf(text: string) {
  const outcome = parseLine(text);
  if (outcome.kind !== 'parsed') throw new Error(`not JSON: ${text}`);
  return outcome.parsed;
}

/** An object with an own `__proto__` data property, as the parser builds one. */
function withProto(object: Record<string, unknown>, proto: unknown): Record<string, unknown> {
  Object.defineProperty(object, '__proto__', { value: proto, enumerable: true, writable: true, configurable: true });
  return object;
}
