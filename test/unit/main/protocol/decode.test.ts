import { describe, expect, test } from 'vitest';
import {
  arrayOf,
  boolean,
  DecodeError,
  describeUnexpected,
  oneOf,
  optional,
  string,
  u32,
  u64,
  withDefault,
  type Decoder,
} from '../../../../src/main/protocol/decode.js';
import { struct } from '../../../../src/main/protocol/decode-struct.js';
import { threadIdParams, threadListParams, threadLoadedListParams, threadReadParams } from '../../../../src/main/protocol/method-params.js';

/** The serde-style text a decoder fails with, or its value when it succeeds. */
function outcome<T>(decode: Decoder<T>, value: unknown): { value: T } | { error: string } {
  try {
    return { value: decode(value) };
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    expect(error.message).toEqual(error.detail);
    return { error: error.detail };
  }
}

describe('serde-style messages, as observed from the reference', () => {
  test.each([
    { name: 'a negative u32', decode: threadLoadedListParams, input: { limit: -1 }, error: 'invalid value: integer `-1`, expected u32' },
    { name: 'a string for a u32', decode: threadLoadedListParams, input: { limit: 'x' }, error: 'invalid type: string "x", expected u32' },
    { name: 'a float for a u32', decode: threadLoadedListParams, input: { limit: 1.5 }, error: 'invalid type: floating point `1.5`, expected u32' },
    { name: 'a u32 one past the maximum', decode: threadLoadedListParams, input: { limit: 4294967296 }, error: 'invalid value: integer `4294967296`, expected u32' },
    { name: 'an integer for a string', decode: threadIdParams, input: { threadId: 5 }, error: 'invalid type: integer `5`, expected a string' },
    { name: 'a string for a boolean', decode: threadReadParams, input: { threadId: 't', includeTurns: 'yes' }, error: 'invalid type: string "yes", expected a boolean' },
    { name: 'a missing required field', decode: threadIdParams, input: {}, error: 'missing field `threadId`' },
    {
      name: 'an unknown variant among four',
      decode: threadListParams,
      input: { sortKey: 'bogus' },
      error: 'unknown variant `bogus`, expected one of `created_at`, `updated_at`, `recency_at`, `section_position`',
    },
    { name: 'an unknown variant among two', decode: threadListParams, input: { sortDirection: 'bogus' }, error: 'unknown variant `bogus`, expected `asc` or `desc`' },
  ])('$name', ({ decode, input, error }) => {
    expect(outcome(decode as Decoder<unknown>, input)).toEqual({ error });
  });

  test('unknown keys are ignored', () => {
    expect(outcome(threadReadParams, { threadId: 't', unknownField: 1, extraField: { a: 1 } })).toEqual({
      value: { threadId: 't', includeTurns: false },
    });
  });

  test('null on an optional field is the same as absent', () => {
    expect([outcome(threadLoadedListParams, { cursor: null, limit: null }), outcome(threadLoadedListParams, {})]).toEqual([
      { value: { cursor: null, limit: null } },
      { value: { cursor: null, limit: null } },
    ]);
  });

  test('null on a required field is an invalid type, not a missing field', () => {
    expect(outcome(threadIdParams, { threadId: null })).toEqual({ error: 'invalid type: null, expected a string' });
  });

  test('null on a defaulted non-Option field is an error, not the default', () => {
    expect(outcome(threadReadParams, { threadId: 't', includeTurns: null })).toEqual({ error: 'invalid type: null, expected a boolean' });
  });

  test('the maximum u32 and 0 are accepted', () => {
    expect([outcome(u32, 4294967295), outcome(u32, 0)]).toEqual([{ value: 4294967295 }, { value: 0 }]);
  });

  test('a whole-valued float such as 2.0 is indistinguishable from 2 in JSON.parse and is accepted', () => {
    expect(outcome(u32, JSON.parse('2.0'))).toEqual({ value: 2 });
  });

  test('u64 takes integers up to the largest safe integer', () => {
    expect([outcome(u64, Number.MAX_SAFE_INTEGER), outcome(u64, -3)]).toEqual([
      { value: Number.MAX_SAFE_INTEGER },
      { error: 'invalid value: integer `-3`, expected u64' },
    ]);
  });

  // A sequence is decoded by position, as serde does for structs (observed from the reference).
  test('a struct given something other than an object names the struct, and a sequence is read by position', () => {
    expect([outcome(threadIdParams, 'x'), outcome(threadIdParams, [1]), outcome(threadIdParams, null)]).toEqual([
      { error: 'invalid type: string "x", expected struct ThreadUnsubscribeParams' },
      { error: 'invalid type: integer `1`, expected a string' },
      { error: 'invalid type: null, expected struct ThreadUnsubscribeParams' },
    ]);
  });

  test('a field is decoded in input order, so the first bad field present is reported before a missing one', () => {
    const decode = struct('S', { a: string, b: u32 });
    expect([outcome(decode, { b: 'x' }), outcome(decode, { b: 1 })]).toEqual([
      { error: 'invalid type: string "x", expected u32' },
      { error: 'missing field `a`' },
    ]);
  });

  test('missing fields are reported in declaration order', () => {
    expect(outcome(struct('S', { first: string, second: string }), {})).toEqual({ error: 'missing field `first`' });
  });
});

describe('the small decoders', () => {
  test('describeUnexpected names each JSON kind as serde does', () => {
    expect([null, true, 3, -0.5, 's"q', [], {}].map(describeUnexpected)).toEqual([
      'null',
      'boolean `true`',
      'integer `3`',
      'floating point `-0.5`',
      'string "s\\"q"',
      'sequence',
      'map',
    ]);
  });

  test('oneOf with one choice and with a non-string value', () => {
    const only = oneOf(['responses'] as const);
    expect([outcome(only, 'chat'), outcome(only, 5), outcome(only, 'responses')]).toEqual([
      { error: 'unknown variant `chat`, expected `responses`' },
      { error: 'invalid type: integer `5`, expected variant identifier' },
      { value: 'responses' },
    ]);
  });

  test('arrayOf checks the container and then each item', () => {
    const decode = arrayOf(string);
    expect([outcome(decode, 'a'), outcome(decode, ['a', 1]), outcome(decode, ['a', 'b'])]).toEqual([
      { error: 'invalid type: string "a", expected a sequence' },
      { error: 'invalid type: integer `1`, expected a string' },
      { value: ['a', 'b'] },
    ]);
  });

  test('optional and withDefault', () => {
    const opt = optional(boolean);
    const def = withDefault(boolean, () => true);
    expect([outcome(opt, undefined), outcome(opt, null), outcome(opt, false), outcome(def, undefined), outcome(def, false)]).toEqual([
      { value: null },
      { value: null },
      { value: false },
      { value: true },
      { value: false },
    ]);
  });
});
