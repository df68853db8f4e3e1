import { expect, test } from 'vitest';
import { ENCODE_IN_WORKER_CHARS, encodeLargeContent } from '../../../src/common/encoded-content.js';
import type { UserInput } from '../../../src/common/wire-types.js';

const text = (chars: number): UserInput => ({ type: 'text', text: 'é'.repeat(chars), text_elements: [] });

test('input below the threshold is left to the main thread', () => {
  expect(encodeLargeContent([text(ENCODE_IN_WORKER_CHARS - 1)])).toBeNull();
});

test('large input comes back as the UTF-8 of its JSON, alone in a transferable buffer', () => {
  const content = [text(ENCODE_IN_WORKER_CHARS / 2), text(ENCODE_IN_WORKER_CHARS / 2)];

  const bytes = encodeLargeContent(content)!;

  expect(Buffer.from(bytes).toString()).toBe(JSON.stringify(content));
  expect({ offset: bytes.byteOffset, whole: bytes.byteLength === bytes.buffer.byteLength }).toEqual({ offset: 0, whole: true });
});
