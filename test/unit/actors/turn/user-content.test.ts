// A user message's parts as codex 0.171.0 gives them to the model (probed: docs/tools.md,
// "Images"), whether it opens a turn or is steered into one, and what the turn's conversation
// keeps of it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { conversationMessageOf, textContentOf, userContentOf } from '../../../../src/actors/turn/user-content.js';
import type { UserInput } from '../../../../src/common/wire-types.js';

// A 2×2 RGB PNG: small enough to be sent as its own bytes.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8Dwn52BAUIBACA7BAvR/u16AAAAAElFTkSuQmCC';
const DATA = `data:image/png;base64,${PNG}`;
const dir = mkdtempSync(join(tmpdir(), 'user-content-'));
const file = join(dir, 'x.png');
writeFileSync(file, Buffer.from(PNG, 'base64'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = (value: string): UserInput => ({ type: 'text', text: value, text_elements: [] });

test('texts alone are one part each, labelled the user\'s', async () => {
  const input = [text('a'), { type: 'skill', name: 's', path: '/s' } as UserInput, text('b')];
  const expected = { parts: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }], kinds: ['user.text', 'user.text'] };
  expect(textContentOf(input)).toEqual(expected);
  expect(await userContentOf(input)).toEqual(expected);
});

test('images are numbered within their message, an unreadable file is the user\'s text, a refused detail a preparation error', async () => {
  const missing = join(dir, 'missing.png');
  const content = await userContentOf([
    text('look'),
    { type: 'localImage', path: file, detail: null },
    { type: 'image', url: DATA.replace('data:', 'Data:'), detail: null },
    { type: 'localImage', path: missing, detail: null },
    { type: 'image', url: DATA, detail: 'low' },
    { type: 'image', url: DATA, detail: 'original' },
  ]);
  expect(content).toEqual({
    parts: [
      { type: 'input_text', text: 'look' },
      { type: 'input_text', text: `<image name=[Image #1] path=${JSON.stringify(file)}>` },
      { type: 'input_image', image_url: DATA, detail: 'high' },
      { type: 'input_text', text: '</image>' },
      { type: 'input_image', image_url: DATA, detail: 'high' },
      { type: 'input_text', text: `Codex could not read the local image at \`${missing}\`: No such file or directory (os error 2)` },
      { type: 'input_text', text: "image content omitted because detail 'low' is not supported; use 'high', 'original', or 'auto'" },
      // The history keeps "original"; the request says "high" (responses-body.ts).
      { type: 'input_image', image_url: DATA, detail: 'original' },
    ],
    kinds: ['user.text', 'user.text', 'user.image', 'user.text', 'user.image', 'user.text', 'images.preparation_error', 'user.image'],
  });
  // The next message counts its images from 1 again.
  expect((await userContentOf([{ type: 'localImage', path: file, detail: null }])).parts[0]).toEqual({ type: 'input_text', text: `<image name=[Image #1] path=${JSON.stringify(file)}>` });
});

test('the conversation keeps a message\'s parts unless its text says the same', () => {
  const one = [text('hi')];
  expect(conversationMessageOf(one, textContentOf(one))).toEqual({ role: 'user', text: 'hi' });
  const two = [text('a'), text('b')];
  expect(conversationMessageOf(two, textContentOf(two))).toEqual({ role: 'user', text: 'a\nb', parts: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] });
  const image: UserInput[] = [{ type: 'image', url: 'data:image/png;base64,AAAA', detail: null }];
  const refused = { parts: [{ type: 'input_text', text: 'image content omitted because it could not be processed' }], kinds: ['images.preparation_error'] };
  expect(conversationMessageOf(image, refused)).toEqual({ role: 'user', text: '', parts: refused.parts });
  expect(conversationMessageOf([], { parts: [], kinds: [] })).toEqual({ role: 'user', text: '' });
});
