// Typed decoding of request params at the edge, with serde's error wording, because the
// reference answers a bad param with `Invalid request: <serde error>` and clients match on
// those texts. Handlers receive typed objects and never see raw JSON.
//
// Decoders take values from `parseJson` (numbers as `JsonNumber`, read the way serde_json's
// `arbitrary_precision` reads them) and also plain JS values, which unit tests use.
import { formatFloatForError, numberText, readNumber, type NumberReading } from './json-number.js';
import { JsonNumber, toPlainJson, type JsonValue } from '../../common/json-text.js';

/** A decoding failure; `detail` is the serde-style text without the "Invalid request: " prefix. */
export class DecodeError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

export type Decoder<T> = (value: unknown) => T;

/** A decoder that also knows its field's default (serde `#[serde(default)]`). */
export type DefaultedDecoder<T> = Decoder<T> & { readonly hasDefault: true };

/** How a number-valued input reads, or null when the input is not a number. */
export function readingOf(value: unknown): NumberReading | null {
  if (value instanceof JsonNumber) return readNumber(value.text);
  if (typeof value === 'number') return readNumber(numberText(value));
  return null;
}

/** A JSON object (not an array, not a number). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof JsonNumber);
}

/** How serde_json names an unexpected value (`JsonUnexpected`'s Display). */
export function describeUnexpected(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'string') return `string ${rustDebugString(value)}`;
  const reading = readingOf(value);
  if (reading?.kind === 'integer') return `integer \`${reading.value}\``;
  if (reading?.kind === 'float') return `floating point \`${formatFloatForError(reading.value)}\``;
  if (reading !== null) return 'map'; // arbitrary_precision's private number map
  if (Array.isArray(value)) return 'sequence';
  return 'map';
}

/** Rust's `{:?}` for a str: quotes, backslash escapes, `\u{…}` for control characters. */
export function rustDebugString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code === 0) out += '\\0';
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += `\\u{${code.toString(16)}}`;
    else out += char;
  }
  return `${out}"`;
}

export const invalidType = (value: unknown, expected: string): DecodeError =>
  new DecodeError(`invalid type: ${describeUnexpected(value)}, expected ${expected}`);

export const string: Decoder<string> = (value) => {
  if (typeof value !== 'string') throw invalidType(value, 'a string');
  return value;
};

/** A `PathBuf`: any string, named "path string" in errors. */
export const pathString: Decoder<string> = (value) => {
  if (typeof value !== 'string') throw invalidType(value, 'path string');
  return value;
};

/** An `AbsolutePathBuf`: a path string that must be absolute. */
export const absolutePath: Decoder<string> = (value) => {
  const path = pathString(value);
  if (!path.startsWith('/')) throw new DecodeError('AbsolutePathBuf deserialized without a base path');
  return path;
};

export const boolean: Decoder<boolean> = (value) => {
  if (typeof value !== 'boolean') throw invalidType(value, 'a boolean');
  return value;
};

function unsigned(name: string, max: bigint): Decoder<number> {
  return (value) => {
    const reading = readingOf(value);
    if (reading?.kind !== 'integer') throw invalidType(value, name);
    if (reading.value < 0n || reading.value > max) throw new DecodeError(`invalid value: integer \`${reading.value}\`, expected ${name}`);
    return Number(reading.value);
  };
}
export const u32 = unsigned('u32', 0xffff_ffffn);
export const u64 = unsigned('u64', 2n ** 64n - 1n);
export const usize = unsigned('usize', 2n ** 64n - 1n);

/** Any JSON value (serde_json::Value), handed on as plain JSON. */
export const anyValue: Decoder<unknown> = (value) => toPlainJson(value as JsonValue);

/** A JSON object whose values are kept as they are (`HashMap<String, Value>`). */
export const jsonObject: Decoder<Record<string, unknown>> = (value) => {
  if (!isJsonObject(value)) throw invalidType(value, 'a map');
  return toPlainJson(value as JsonValue) as Record<string, unknown>;
};

/** A `HashMap<String, T>`. */
export function mapOf<T>(item: Decoder<T>): Decoder<Record<string, T>> {
  return (value) => {
    if (!isJsonObject(value)) throw invalidType(value, 'a map');
    const out: Record<string, T> = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: item(value[key]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
}

export function arrayOf<T>(item: Decoder<T>): Decoder<T[]> {
  return (value) => {
    if (!Array.isArray(value)) throw invalidType(value, 'a sequence');
    return value.map((element) => item(element));
  };
}

/** `Option<T>`: absent and null both decode to null. */
export function optional<T>(inner: Decoder<T>): Decoder<T | null> {
  return (value) => (value === undefined || value === null ? null : inner(value));
}

/** A field with a default when absent (serde `#[serde(default)]`); null is still an error for non-Option fields. */
export function withDefault<T>(inner: Decoder<T>, fallback: () => T): DefaultedDecoder<T> {
  const decode = (value: unknown) => (value === undefined ? fallback() : inner(value));
  return Object.assign(decode, { hasDefault: true as const });
}

/** A string from a fixed set, decoded as a variant identifier (kept for config-style enums). */
export function oneOf<const V extends string>(values: readonly V[]): Decoder<V> {
  return (value) => {
    if (typeof value !== 'string') throw invalidType(value, 'variant identifier');
    if (!(values as readonly string[]).includes(value)) throw unknownVariant(value, values);
    return value as V;
  };
}

/**
 * A unit-only enum inside params: serde reads it from buffered content, so it takes the name
 * as a string or as a one-entry map `{"name": null}`, and names anything else "string or map".
 */
export function unitEnum<const V extends string>(values: readonly V[]): Decoder<V> {
  return (value) => {
    if (typeof value === 'string') return variantOf(value, values);
    const [name, inner] = singleEntry(value);
    const variant = variantOf(name, values);
    if (inner !== null) throw invalidType(inner, 'unit');
    return variant;
  };
}

/** The one entry of an externally tagged enum given as a map; anything else is an error. */
export function singleEntry(value: unknown): [string, unknown] {
  if (!isJsonObject(value)) throw invalidType(value, 'string or map');
  const keys = Object.keys(value);
  if (keys.length !== 1) throw new DecodeError('invalid value: map, expected map with a single key');
  return [keys[0]!, value[keys[0]!]];
}

export function variantOf<const V extends string>(name: string, values: readonly V[]): V {
  if (!(values as readonly string[]).includes(name)) throw unknownVariant(name, values);
  return name as V;
}

export const unknownVariant = (variant: string, expected: readonly string[]): DecodeError =>
  new DecodeError(`unknown variant \`${variant}\`, expected ${formatExpected(expected)}`);

// serde: "expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, `c`".
function formatExpected(expected: readonly string[]): string {
  if (expected.length === 0) return 'nothing';
  if (expected.length === 1) return `\`${expected[0]}\``;
  if (expected.length === 2) return `\`${expected[0]}\` or \`${expected[1]}\``;
  return `one of ${expected.map((name) => `\`${name}\``).join(', ')}`;
}

/**
 * The reference buffers a request's params before decoding them, and that buffer cannot hold
 * an integer that only fits u128/i128: such a number anywhere in params fails the request.
 */
export function rejectWideIntegers(value: JsonValue): void {
  if (value instanceof JsonNumber) {
    const reading = readNumber(value.text);
    if (reading.kind === 'wide') throw new DecodeError(`invalid type: integer \`${reading.text}\` as ${reading.type}, expected any value`);
  } else if (Array.isArray(value)) {
    for (const item of value) rejectWideIntegers(item);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) rejectWideIntegers(item);
  }
}

/** An untagged enum: the first alternative that decodes wins; none gives serde's fixed text. */
export function untagged<T>(name: string, alternatives: ReadonlyArray<Decoder<T>>): Decoder<T> {
  return (value) => {
    for (const alternative of alternatives) {
      try {
        return alternative(value);
      } catch (error) {
        if (!(error instanceof DecodeError)) throw error;
      }
    }
    throw new DecodeError(`data did not match any variant of untagged enum ${name}`);
  };
}
