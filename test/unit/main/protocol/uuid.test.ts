import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseUuid, uuidv7 } from '../../../../src/main/protocol/uuid.js';

// The uuid crate's invalid-character text, as codex 0.171.0 prints it.
const P = 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found';

describe('parseUuid refuses malformed ids with the reference texts', () => {
  test.each([
    { input: 'not-a-uuid', error: `${P} \`n\` at 1` },
    { input: '', error: 'invalid length: expected length 32 for simple format, found 0' },
    { input: '../etc/passwd', error: `${P} \`.\` at 1` },
    { input: '/abs/path', error: `${P} \`/\` at 1` },
    { input: '01a23644-4410-7392-9ce9', error: 'invalid group count: expected 5, found 4' },
    { input: '01a23644-4410-7392-9ce9-3a08921e3af1x', error: `${P} \`x\` at 37` },
    { input: '01a2364444107392 9ce93a08921e3af1', error: `${P} \` \` at 17` },
    { input: '12345', error: 'invalid length: expected length 32 for simple format, found 5' },
    { input: '01a236444-410-7392-9ce9-3a08921e3af1', error: 'invalid group length in group 0: expected 8, found 9' },
    { input: '01a23644-4410-7392-9ce9-3a08921e3afg', error: `${P} \`g\` at 36` },
    { input: ' 01a23644-4410-7392-9ce9-3a08921e3af1', error: `${P} \` \` at 1` },
    { input: 'ü1a23644-4410-7392-9ce9-3a08921e3af1', error: `${P} \`ü\` at 1` },
  ])('$input', ({ input, error }) => {
    expect(parseUuid(input)).toEqual({ ok: false, error });
  });
});

describe('parseUuid accepts exactly the uuid grammar', () => {
  // The grammar as regular expressions, the way the crate's documentation states it; parseUuid
  // checks the same with a character loop, which must agree on every input.
  const HYPHENATED = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
  const SIMPLE = /^[0-9a-fA-F]{32}$/;
  const expected = (input: string): boolean => {
    const body = /^\{.{36}\}$/s.test(input) ? input.slice(1, -1) : /^urn:uuid:.{36}$/s.test(input) ? input.slice(9) : input;
    return HYPHENATED.test(body) || (body === input && SIMPLE.test(body));
  };
  // Near misses: hex digits, hyphens and a few neighbours of their character codes.
  const alphabet = fc.constantFrom(...'0123456789abcdefABCDEF-gG@`/:{}Fz\u00e9\u0661 '.split(''));
  const nearUuid = fc.oneof(
    fc.string({ unit: alphabet, minLength: 30, maxLength: 40 }),
    fc.tuple(fc.constantFrom('', '{', 'urn:uuid:'), fc.uuid(), fc.constantFrom('', '}')).map(([a, b, c]) => a + b + c),
    fc.uuid().chain((id) => fc.tuple(fc.nat(35), alphabet).map(([at, c]) => id.slice(0, at) + c + id.slice(at + 1))),
  );

  test('agrees with the regular-expression grammar on near misses', () => {
    fc.assert(
      fc.property(nearUuid, (input) => {
        expect(parseUuid(input).ok).toBe(expected(input));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('parseUuid accepts every form the crate accepts and normalizes to lowercase hyphenated', () => {
  const canonical = '01a23644-4410-7392-9ce9-3a08921e3af1';
  test.each([
    { form: 'hyphenated', input: canonical },
    { form: 'simple (32 hex digits)', input: '01a23644441073929ce93a08921e3af1' },
    { form: 'urn', input: `urn:uuid:${canonical}` },
    { form: 'uppercase', input: canonical.toUpperCase() },
    { form: 'uppercase simple', input: '01A23644441073929CE93A08921E3AF1' },
    { form: 'braced', input: `{${canonical}}` },
    { form: 'braced uppercase', input: `{${canonical.toUpperCase()}}` },
    { form: 'urn uppercase', input: `urn:uuid:${canonical.toUpperCase()}` },
  ])('$form', ({ input }) => {
    expect(parseUuid(input)).toEqual({ ok: true, value: canonical });
  });
});

describe('uuidv7', () => {
  const SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test('has version nibble 7, the RFC 4122 variant bits and the millisecond timestamp in its first 48 bits', () => {
    const ms = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
    const id = uuidv7(ms);
    const hex = id.replaceAll('-', '');
    expect({
      shape: SHAPE.test(id),
      version: hex[12],
      variantBits: (parseInt(hex[16]!, 16) >> 2).toString(2),
      timestamp: parseInt(hex.slice(0, 12), 16),
      parsesBack: parseUuid(id),
    }).toEqual({ shape: true, version: '7', variantBits: '10', timestamp: ms, parsesBack: { ok: true, value: id } });
  });

  test('1000 ids minted in the same millisecond are distinct and already sorted as strings', () => {
    const ms = Date.now() + 60_000;
    const ids = Array.from({ length: 1000 }, () => uuidv7(ms));
    expect({
      distinct: new Set(ids).size,
      sorted: [...ids].sort().join('\n') === ids.join('\n'),
      allWellFormed: ids.every((id) => SHAPE.test(id)),
    }).toEqual({ distinct: 1000, sorted: true, allWellFormed: true });
  });

  test('ids stay sorted across the 12-bit counter overflowing within one millisecond', () => {
    const ms = Date.now() + 120_000;
    const ids = Array.from({ length: 10_000 }, () => uuidv7(ms));
    expect({ distinct: new Set(ids).size, sorted: [...ids].sort().join('\n') === ids.join('\n') }).toEqual({
      distinct: 10_000,
      sorted: true,
    });
  });

  test('an id minted with an earlier clock reading still sorts after the previous one', () => {
    const later = uuidv7(Date.now() + 180_000);
    const earlier = uuidv7(Date.now());
    expect([later, earlier].sort()).toEqual([later, earlier]);
  });
});
