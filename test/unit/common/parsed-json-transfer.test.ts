// A parsed line that crosses a thread boundary (structured clone, as postMessage does) must
// arrive as exactly what parsing it on this thread gives: the same value, JsonNumbers as
// JsonNumbers, and duplicate keys on the same objects.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { JsonNumber } from '../../../src/common/json-text.js';
import { parseLine, type LineOutcome } from '../../../src/common/line-outcome.js';
import { fromTransfer, toTransfer } from '../../../src/common/parsed-json-transfer.js';
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
