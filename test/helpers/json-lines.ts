// Input lines for testing that a line read off the main thread reads exactly as on it:
// a fast-check arbitrary of JSON-ish text that is rich in what needs care (duplicate
// `id`/`method`/`params` keys, `__proto__`, numbers the parser keeps as text, lone
// surrogate escapes, nesting around the depth limit, stray characters), and the comparable
// form of a LineOutcome (the value with its JsonNumbers, and duplicate keys by path).
import fc from 'fast-check';
import { JsonNumber, type JsonObject, type JsonValue, type ParsedJson } from '../../src/common/json-text.js';
import type { LineOutcome } from '../../src/common/line-outcome.js';

const NUMBERS = ['0', '-0', '1', '42', '-7', '1.0', '1.5', '0.10', '1e2', '1E400', '-1e-7', '123456789012345', '1234567890123456', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '340282366920938463463374607431768211456'];
const KEYS = ['id', 'method', 'params', 'trace', 'traceparent', 'a', '__proto__', 'constructor', '0', '10'];
const ODD_STRINGS = ['"\\ud800"', '"\\udc00x"', '"\\uD83D\\uDE00"', '"a\\nb\\"c\\\\"', '"\\u0000"', '"\\x"'];

const { value } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...NUMBERS),
    fc.string({ unit: 'grapheme', maxLength: 8 }).map((text) => JSON.stringify(text)),
    fc.constantFrom(...ODD_STRINGS, 'true', 'false', 'null'),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc
    .array(fc.tuple(fc.constantFrom(...KEYS), tie('value')), { maxLength: 5 })
    .map((entries) => `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${item}`).join(',')}}`),
}));

/** Nesting just below, at and past serde_json's limit of 127 containers. */
const deep = fc.integer({ min: 125, max: 130 }).map((depth) => `{"id":1,"method":"m","params":${'['.repeat(depth)}${']'.repeat(depth)}}`);

/** A line: JSON-ish text, sometimes with a stray character spliced in (a syntax error, mostly). */
export const jsonLine: fc.Arbitrary<string> = fc
  .tuple(fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: deep }), fc.option(fc.tuple(fc.nat(), fc.constantFrom('}', ',', 'x', '\u0001', ' ', '"')), { freq: 4 }))
  .map(([text, splice]) => (splice === null ? text : text.slice(0, splice[0] % (text.length + 1)) + splice[1] + text.slice(splice[0] % (text.length + 1))));

/** Duplicate keys as [path, keys] in document order, and whether the map held anything else. */
function duplicatesByPath(parsed: ParsedJson): { paths: Array<[string, string[]]>; strays: number } {
  const paths: Array<[string, string[]]> = [];
  const walk = (item: JsonValue, path: string): void => {
    if (item === null || typeof item !== 'object' || item instanceof JsonNumber) return;
    const keys = parsed.duplicateKeys.get(item as JsonObject);
    if (keys !== undefined) paths.push([path, [...keys]]);
    if (Array.isArray(item)) item.forEach((child, i) => walk(child, `${path}[${i}]`));
    else for (const key of Object.keys(item)) walk(item[key]!, `${path}.${JSON.stringify(key)}`);
  };
  walk(parsed.value, '$');
  return { paths, strays: parsed.duplicateKeys.size - paths.length };
}

/**
 * A value as tagged data, so `toEqual` compares it whole and exactly: a JsonNumber is not a
 * plain `{text}` object, a plain number is not its text, and keys such as `constructor` or
 * `__proto__` are just entries, in their order.
 */
function tagged(item: JsonValue): unknown {
  if (item instanceof JsonNumber) return ['JsonNumber', item.text];
  if (Array.isArray(item)) return ['array', item.map(tagged)];
  if (item !== null && typeof item === 'object') {
    if (Object.getPrototypeOf(item) !== Object.prototype) return ['not a plain object', String(item)];
    return ['object', Object.keys(item).map((key) => [key, tagged(item[key]!)])];
  }
  return [typeof item, Object.is(item, -0) ? '-0' : item];
}

/** A LineOutcome in a form `toEqual` compares whole and exactly. */
export function comparable(outcome: LineOutcome): unknown {
  if (outcome.kind !== 'parsed') return outcome;
  return { kind: 'parsed', value: tagged(outcome.parsed.value), duplicates: duplicatesByPath(outcome.parsed) };
}
