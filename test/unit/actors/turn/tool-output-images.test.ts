// A tool's output images, prepared in the worker as codex 0.171.0 prepares them (probed:
// docs/tools.md, "Images"): resized and re-encoded as a prompt's, the media type its bytes',
// `data:` in any case; one that does not decode, or is no image, the reference's text.
import sharp from 'sharp';
import { expect, test } from 'vitest';
import { toolOutputWithImages } from '../../../../src/actors/turn/tool-output-images.js';
import type { ToolAnswer } from '../../../../src/common/actor-messages.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8Dwn52BAUIBACA7BAvR/u16AAAAAElFTkSuQmCC';
const UNPROCESSABLE = { type: 'input_text', text: 'image content omitted because it could not be processed' };
const answer = (output: ToolAnswer['output'], modelOutput?: ToolAnswer['modelOutput']): ToolAnswer => ({
  turnId: 't', callId: 'c', output, ...(modelOutput === undefined ? {} : { modelOutput }), outputId: 'fco_1', item: null,
});

test('an output without images is the same answer', async () => {
  const texts = answer([{ type: 'input_text', text: 'a' }]);
  expect(await toolOutputWithImages(texts)).toBe(texts);
  const plain = answer('done');
  expect(await toolOutputWithImages(plain)).toBe(plain);
});

test('each image is prepared in its place, in the history\'s output and the model\'s', async () => {
  const image = (url: string) => ({ type: 'input_image', image_url: url });
  const prepared = await toolOutputWithImages(answer(
    [{ type: 'input_text', text: 'a' }, image(`DATA:image/jpeg;base64,${PNG}`), image('data:image/png;base64,!!!'), image('data:text/plain;base64,aGVsbG8='), { type: 'input_audio', audio_url: 'x' }],
    [{ type: 'input_text', text: 'a' }, image(`Data:image/png;base64,${PNG}`)],
  ));
  const sent = { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'high' };
  expect(prepared).toEqual(answer([{ type: 'input_text', text: 'a' }, sent, UNPROCESSABLE, UNPROCESSABLE, { type: 'input_audio', audio_url: 'x' }], [{ type: 'input_text', text: 'a' }, sent]));
});

test('a large image is resized as a prompt image is', async () => {
  const pixels = Buffer.alloc(3000 * 3000 * 3, 7);
  const large = await sharp(pixels, { raw: { width: 3000, height: 3000, channels: 3 } }).png().toBuffer();
  const prepared = await toolOutputWithImages(answer([{ type: 'input_image', image_url: `data:image/png;base64,${large.toString('base64')}` }]));
  const [part] = prepared.output as Array<{ type: string; image_url: string; detail: string }>;
  expect([part!.type, part!.detail, part!.image_url.startsWith('data:image/png;base64,')]).toEqual(['input_image', 'high', true]);
  const meta = await sharp(Buffer.from(part!.image_url.slice('data:image/png;base64,'.length), 'base64')).metadata();
  expect([meta.format, meta.width, meta.height]).toEqual(['png', 1600, 1600]);
});
