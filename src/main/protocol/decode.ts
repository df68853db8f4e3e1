// Typed decoding of request params at the edge, with serde's error wording, because the
// reference answers a bad param with `Invalid request: <serde error>` and clients match on
// those texts. Handlers receive typed objects and never see raw JSON.

/** A decoding failure; `detail` is the serde-style text without the "Invalid request: " prefix. */
export class DecodeError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

export type Decoder<T> = (value: unknown) => T;

/** How serde names an unexpected JSON value (`Unexpected`'s Display). */
export function describeUnexpected(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'number') {
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  }
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return 'sequence';
  return 'map';
}

const invalidType = (value: unknown, expected: string): DecodeError =>
  new DecodeError(`invalid type: ${describeUnexpected(value)}, expected ${expected}`);

export const string: Decoder<string> = (value) => {
  if (typeof value !== 'string') throw invalidType(value, 'a string');
  return value;
};

export const boolean: Decoder<boolean> = (value) => {
  if (typeof value !== 'boolean') throw invalidType(value, 'a boolean');
  return value;
};

function unsigned(bits: 32 | 64): Decoder<number> {
  const name = `u${bits}`;
  const max = bits === 32 ? 0xffff_ffff : Number.MAX_SAFE_INTEGER;
  return (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidType(value, name);
    if (value < 0 || value > max) throw new DecodeError(`invalid value: integer \`${value}\`, expected ${name}`);
    return value;
  };
}
export const u32 = unsigned(32);
export const u64 = unsigned(64);

/** Any JSON value (serde_json::Value). */
export const anyValue: Decoder<unknown> = (value) => value;

/** A JSON object whose values are kept as they are (`HashMap<String, Value>`). */
export const jsonObject: Decoder<Record<string, unknown>> = (value) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidType(value, 'a map');
  return value as Record<string, unknown>;
};

/** A string from a fixed set, as a unit-variant enum deserializes. */
export function oneOf<const V extends string>(values: readonly V[]): Decoder<V> {
  return (value) => {
    if (typeof value !== 'string') throw invalidType(value, 'variant identifier');
    if (!(values as readonly string[]).includes(value)) throw unknownVariant(value, values);
    return value as V;
  };
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

export function arrayOf<T>(item: Decoder<T>): Decoder<T[]> {
  return (value) => {
    if (!Array.isArray(value)) throw invalidType(value, 'a sequence');
    return value.map(item);
  };
}

/** `Option<T>`: absent and null both decode to null. */
export function optional<T>(inner: Decoder<T>): Decoder<T | null> {
  return (value) => (value === undefined || value === null ? null : inner(value));
}

/** A field with a default when absent (serde `#[serde(default)]`); null is still an error for non-Option fields. */
export function withDefault<T>(inner: Decoder<T>, fallback: () => T): Decoder<T> {
  return (value) => (value === undefined ? fallback() : inner(value));
}

type FieldDecoders = Record<string, Decoder<unknown>>;
type Decoded<F extends FieldDecoders> = { [K in keyof F]: F[K] extends Decoder<infer T> ? T : never };

/**
 * A struct: unknown keys are ignored (as the reference does), fields are decoded in the
 * order they appear in the input, then missing required fields are reported in declaration
 * order. A field is required when its decoder rejects `undefined`.
 */
export function struct<F extends FieldDecoders>(name: string, fields: F): Decoder<Decoded<F>> {
  const names = Object.keys(fields);
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw invalidType(value, `struct ${name}`);
    }
    const input = value as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(input)) {
      const decode = fields[key];
      if (decode !== undefined) output[key] = decode(input[key]);
    }
    for (const key of names) {
      if (key in output) continue;
      try {
        output[key] = fields[key]!(undefined);
      } catch {
        throw new DecodeError(`missing field \`${key}\``);
      }
    }
    return output as Decoded<F>;
  };
}
