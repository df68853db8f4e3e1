// Structs and tagged enums with serde's derive semantics. A struct may arrive as a map (fields
// in input order, unknown keys ignored, then the first missing required field in declaration
// order) or, as serde allows, as a sequence of its fields in declaration order:
//   ["01a2…"] for ThreadReadParams  → threadId = "01a2…", includeTurns defaulted
//   []        for ThreadStartParams → "invalid length 0, expected struct ThreadStartParams with 27 elements"
// Fields the host validates but does not use are declared with `checked()`: they are decoded
// (so their errors match the reference) and left out of the typed result.
import { toPlainJson, type JsonValue } from '../../common/json-text.js';
// Only used inside functions: decode.ts re-exports this module, so the cycle is harmless.
import { DecodeError, describeUnexpected, invalidType, isJsonObject, readingOf, unknownVariant, type Decoder } from './decode.js';

/** A field decoded for its errors only and dropped from the result. */
export type Checked = Decoder<unknown> & { readonly checkedOnly: true };

/** Declares a field the host validates but does not use. */
export function checked(decoder: Decoder<unknown>): Checked {
  const wrapped = (value: unknown) => decoder(value);
  return Object.assign(wrapped, { checkedOnly: true as const, hasDefault: hasDefault(decoder) });
}

/** Marks an `Option` field that also carries `#[serde(default)]`, which matters in sequence form. */
export function defaulted<T>(decoder: Decoder<T>): Decoder<T> {
  return Object.assign((value: unknown) => decoder(value), { hasDefault: true as const });
}

type FieldDecoders = Record<string, Decoder<unknown>>;
type Decoded<F extends FieldDecoders> = {
  [K in keyof F as F[K] extends Checked ? never : K]: F[K] extends Decoder<infer T> ? T : never;
};

const hasDefault = (decoder: Decoder<unknown>): boolean => (decoder as { hasDefault?: boolean }).hasDefault === true;
const isChecked = (decoder: Decoder<unknown>): boolean => (decoder as { checkedOnly?: boolean }).checkedOnly === true;
const elements = (n: number): string => (n === 1 ? '1 element' : `${n} elements`);

/** A struct named `name` with fields in declaration order. A field is required when its decoder rejects `undefined`. */
export function struct<F extends FieldDecoders>(name: string, fields: F): Decoder<Decoded<F>> {
  const names = Object.keys(fields);
  const own = (key: string) => Object.prototype.hasOwnProperty.call(fields, key);
  return (value) => {
    const decoded: Record<string, unknown> = {};
    if (Array.isArray(value)) {
      names.forEach((key, index) => {
        const decode = fields[key]!;
        if (index < value.length) decoded[key] = decode(value[index]);
        else if (hasDefault(decode)) decoded[key] = decode(undefined);
        else throw new DecodeError(`invalid length ${index}, expected struct ${name} with ${elements(names.length)}`);
      });
      if (value.length > names.length) {
        throw new DecodeError(`invalid length ${value.length}, expected ${elements(names.length)} in sequence`);
      }
    } else {
      if (!isJsonObject(value)) throw invalidType(value, `struct ${name}`);
      for (const key of Object.keys(value)) if (own(key)) decoded[key] = fields[key]!(value[key]);
      for (const key of names) {
        if (Object.prototype.hasOwnProperty.call(decoded, key)) continue;
        try {
          decoded[key] = fields[key]!(undefined);
        } catch {
          throw new DecodeError(`missing field \`${key}\``);
        }
      }
    }
    const output: Record<string, unknown> = {};
    for (const key of names) if (!isChecked(fields[key]!)) output[key] = decoded[key];
    return output as Decoded<F>;
  };
}

/**
 * A struct the host never reads (an experimental feature it does not serve): checked for its
 * kind and for the required fields the reference reports first, and kept as plain JSON.
 */
export function shape(name: string, required: readonly string[] = []): Decoder<unknown> {
  return (value) => {
    if (Array.isArray(value)) return toPlainJson(value as JsonValue);
    if (!isJsonObject(value)) throw invalidType(value, `struct ${name}`);
    for (const key of required) if (!(key in value)) throw new DecodeError(`missing field \`${key}\``);
    return toPlainJson(value as JsonValue);
  };
}

/**
 * The variant an internally tagged enum's `type` names. Like serde, an integer picks a
 * variant by index (`{"type": 5}` is the sixth variant).
 */
export function tagOf(enumName: string, value: unknown, variants: readonly string[]): string {
  if (!isJsonObject(value)) throw invalidType(value, `internally tagged enum ${enumName}`);
  if (!('type' in value)) throw new DecodeError('missing field `type`');
  const tag = value.type;
  if (typeof tag === 'string') {
    if (!variants.includes(tag)) throw unknownVariant(tag, variants);
    return tag;
  }
  const reading = readingOf(tag);
  if (reading?.kind === 'integer') {
    if (reading.value >= 0n && reading.value < BigInt(variants.length)) return variants[Number(reading.value)]!;
    throw new DecodeError(`invalid value: integer \`${reading.value}\`, expected variant index 0 <= i < ${variants.length}`);
  }
  throw new DecodeError(`invalid type: ${describeUnexpected(tag)}, expected variant identifier`);
}

/** An internally tagged enum the host never reads: the tag is checked, the rest kept as sent. */
export function internallyTagged(enumName: string, variants: readonly string[]): Decoder<unknown> {
  return (value) => {
    tagOf(enumName, value, variants);
    return toPlainJson(value as JsonValue);
  };
}
