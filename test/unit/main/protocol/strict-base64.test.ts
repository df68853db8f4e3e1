// The reference's base64 (the Rust crate's STANDARD engine), as codex-cli 0.171.0 answered
// each of these in command/exec/write: the crate's error for each malformed text.
import { expect, test } from 'vitest';
import { decodeStrictBase64 } from '../../../../src/main/protocol/strict-base64.js';

const REFERENCE_ERRORS: ReadonlyArray<readonly [string, string]> = [
  ['YQ', 'Invalid padding'],
  ['YQ=', 'Invalid padding'],
  ['YR==', 'Invalid last symbol 82, offset 1.'],
  ['Y', 'Invalid input length: 1'],
  ['YQ==YQ==', 'Invalid symbol 61, offset 2.'],
  ['YQ=a', 'Invalid symbol 61, offset 2.'],
  ['YWJj\n', 'Invalid symbol 10, offset 4.'],
  ['YW Jj', 'Invalid symbol 32, offset 2.'],
  ['====', 'Invalid symbol 61, offset 0.'],
  ['YQ===', 'Invalid symbol 61, offset 2.'],
  ['YWJjZA', 'Invalid padding'],
  ['YWJjZA=', 'Invalid padding'],
  ['Y===', 'Invalid symbol 61, offset 1.'],
  ['YWJ=', 'Invalid last symbol 74, offset 2.'],
  ['-_', 'Invalid symbol 45, offset 0.'],
  ['YQ==\u00e9', 'Invalid symbol 61, offset 2.'],
];

test('each malformed text gets the crate\'s error', () => {
  const errors = REFERENCE_ERRORS.map(([text]) => {
    try {
      decodeStrictBase64(text);
      return 'decoded';
    } catch (error) {
      return (error as Error).message;
    }
  });
  expect(errors).toEqual(REFERENCE_ERRORS.map(([, message]) => message));
});

test('canonical base64 decodes to its bytes, the empty text to none', () => {
  expect([decodeStrictBase64(''), decodeStrictBase64('YWI='), decodeStrictBase64('YQ=='), decodeStrictBase64('YWJj'), decodeStrictBase64('+/8=')]).toEqual([
    Buffer.alloc(0),
    Buffer.from('ab'),
    Buffer.from('a'),
    Buffer.from('abc'),
    Buffer.from([0xfb, 0xff]),
  ]);
});
