// A rollout line's strings are well formed: a lone surrogate another writer escaped into the
// file reads as U+FFFD (it would otherwise read differently once it crossed threads), while an
// escaped pair is the character it encodes.
import { expect, test } from 'vitest';
import { parseLine } from '../../../../src/common/rollout/rollout-json.js';

test('lone surrogates read as U+FFFD, escaped pairs as their character, other lines as parsed', () => {
  const line = String.raw`{"type":"event_msg","payload":{"a":"Do\ud800ne","b":"\ud83d\ude80 \uD83D\uDE80","c":["\udc00",{"d":"x\uDBFF"}],"e":"plain \u00e9"}}`;
  expect(parseLine(line)?.payload).toEqual({ a: 'Do\uFFFDne', b: '🚀 🚀', c: ['\uFFFD', { d: 'x\uFFFD' }], e: 'plain é' });
  expect(parseLine('{"type":"t","payload":{"s":"\\\\ud800 is text, not an escape"}}')?.payload).toEqual({ s: '\\ud800 is text, not an escape' });
  expect(parseLine('{"type":"t","payload":{"s":"\\ud800')).toBeNull();
});
