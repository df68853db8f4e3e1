import { expect, test } from 'vitest';
import { ENCODE_IN_WORKER_CHARS, encodeLargeContent, postedInput, receivedInput } from '../../../src/common/encoded-content.js';
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

test('a text that came as bytes is posted as them, listed for transfer, and read back as sent', () => {
  const big = text(ENCODE_IN_WORKER_CHARS);
  const utf8 = new Uint8Array(Buffer.from(big.type === 'text' ? big.text : ''));
  const image: UserInput = { type: 'image', url: 'https://example.com/a.png' } as UserInput;
  const input: UserInput[] = [big, image, text(3)];
  const posted = postedInput(input, (part) => (part === big ? utf8 : undefined));
  const bytes = utf8.byteLength;
  expect({
    input: posted.input.map((part) => ('utf8' in part ? { ...part, utf8: part.utf8.byteLength } : part)),
    transfer: posted.transfer.map((buffer) => buffer === utf8.buffer),
    received: receivedInput(structuredClone(posted.input, { transfer: posted.transfer })),
  }).toEqual({
    input: [{ type: 'text', text: '', text_elements: [], utf8: bytes }, image, text(3)],
    transfer: [true],
    received: input,
  });
});
