// The size rule and the preparation of prompt images, for each case probed in codex 0.171.0
// (docs/tools.md, "Images"): the size, the media type, the encoding and whether the bytes
// are the file's own.
import sharp, { type Sharp } from 'sharp';
import { describe, expect, test } from 'vitest';
import { imageDataUrlBytes } from '../../src/actors/turn/image-data-url.js';
import { preparePromptImage } from '../../src/actors/turn/prompt-image.js';
import { patchCount, promptImageSize } from '../../src/actors/turn/prompt-image-size.js';

describe('promptImageSize', () => {
  // [source, what the reference sent]
  const probed: Array<[number, number, number, number]> = [
    [3000, 3000, 1600, 1600], [4000, 1000, 2048, 512], [1000, 4000, 512, 2048], [1600, 1600, 1600, 1600],
    [1601, 10, 1601, 10], [2048, 2048, 1600, 1600], [2049, 100, 2048, 100], [2000, 1999, 1568, 1568],
    [3000, 2000, 1920, 1280], [4000, 3000, 1824, 1368], [1600, 1601, 1568, 1568], [1601, 1600, 1568, 1568],
    [2050, 2, 2048, 2], [5000, 7, 2048, 3], [7, 9000, 2, 2048], [2048, 1024, 2048, 1024], [12000, 12000, 1600, 1600],
    [13377, 13377, 1600, 1600], [64, 32, 64, 32],
  ];
  test.each(probed)('%i×%i is sent as %i×%i', (width, height, sentWidth, sentHeight) => {
    expect(promptImageSize(width, height)).toEqual({ width: sentWidth, height: sentHeight });
  });

  test('patches are counted by whole 32×32 tiles', () => {
    expect([patchCount(1600, 1600), patchCount(1601, 1600), patchCount(1, 1), patchCount(1568, 1569)]).toEqual([2500, 2550, 1, 2450]);
  });
});

// A gradient, so a resize has something to average.
function gradient(width: number, height: number, channels: 3 | 4): Sharp {
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      pixels[at] = (x * 255) / width;
      pixels[at + 1] = (y * 255) / height;
      pixels[at + 2] = (x ^ y) & 0xff;
      if (channels === 4) pixels[at + 3] = (x + y) % 256;
    }
  }
  return sharp(pixels, { raw: { width, height, channels } });
}

interface Seen {
  mime: string;
  width: number | undefined;
  height: number | undefined;
  format: string | undefined;
  channels: number | undefined;
  same: boolean;
}

async function seen(file: Buffer, keepSize = false): Promise<Seen | string> {
  const prepared = await preparePromptImage(file, keepSize);
  if (prepared.kind !== 'image') return prepared.kind;
  const meta = await sharp(prepared.bytes).metadata();
  return { mime: prepared.mime, width: meta.width, height: meta.height, format: meta.format, channels: meta.channels, same: prepared.bytes.equals(file) };
}

describe('preparePromptImage', () => {
  const png = (width: number, height: number, channels: 3 | 4 = 3) => () => gradient(width, height, channels).png().toBuffer();
  const shape = (mime: string, width: number, height: number, format: string, channels: number, same: boolean): Seen => ({ mime, width, height, format, channels, same });
  // [what the file is, what is sent]
  const probed: Array<[string, () => Promise<Buffer>, Seen]> = [
    ['PNG 3000×3000', png(3000, 3000), shape('image/png', 1600, 1600, 'png', 4, false)],
    ['PNG 4000×1000', png(4000, 1000), shape('image/png', 2048, 512, 'png', 4, false)],
    ['PNG 1000×4000', png(1000, 4000), shape('image/png', 512, 2048, 'png', 4, false)],
    ['PNG 2000×1999', png(2000, 1999), shape('image/png', 1568, 1568, 'png', 4, false)],
    ['PNG with alpha 3000×2000', png(3000, 2000, 4), shape('image/png', 1920, 1280, 'png', 4, false)],
    ['PNG 1600×1600', png(1600, 1600), shape('image/png', 1600, 1600, 'png', 3, true)],
    ['PNG 1601×10', png(1601, 10), shape('image/png', 1601, 10, 'png', 3, true)],
    ['PNG with alpha 64×32', png(64, 32, 4), shape('image/png', 64, 32, 'png', 4, true)],
    ['JPEG 800×600', () => gradient(800, 600, 3).jpeg().toBuffer(), shape('image/jpeg', 800, 600, 'jpeg', 3, true)],
    ['WebP 3000×3000', () => gradient(3000, 3000, 3).webp().toBuffer(), shape('image/webp', 1600, 1600, 'webp', 3, false)],
    ['WebP 64×32', () => gradient(64, 32, 3).webp().toBuffer(), shape('image/webp', 64, 32, 'webp', 3, true)],
    ['GIF 100×100', () => gradient(100, 100, 3).gif().toBuffer(), shape('image/png', 100, 100, 'png', 4, false)],
    ['GIF 3000×3000', () => gradient(3000, 3000, 3).gif().toBuffer(), shape('image/png', 1600, 1600, 'png', 4, false)],
  ];
  test.each(probed)('%s', async (_name, file, sent) => {
    expect(await seen(await file())).toEqual(sent);
  });

  test('a resized JPEG stays a JPEG: quality 85, no chroma subsampling, baseline', async () => {
    const jpeg = await preparePromptImage(await gradient(4000, 3000, 3).jpeg({ quality: 90 }).toBuffer(), false);
    expect(jpeg.kind === 'image' && jpeg.mime).toBe('image/jpeg');
    const jpegMeta = await sharp((jpeg as { bytes: Buffer }).bytes).metadata();
    expect([jpegMeta.width, jpegMeta.height, jpegMeta.chromaSubsampling, jpegMeta.isProgressive]).toEqual([1824, 1368, '4:4:4', false]);
  });

  test('detail "original" keeps the size: the file goes as it is', async () => {
    expect(await seen(await gradient(3000, 3000, 3).png().toBuffer(), true)).toEqual({ mime: 'image/png', width: 3000, height: 3000, format: 'png', channels: 3, same: true });
  });

  test('what does not decode cannot be processed, except a truncated JPEG, which the reference takes', async () => {
    const png = await gradient(200, 200, 3).png().toBuffer();
    const jpeg = await gradient(200, 200, 3).jpeg().toBuffer();
    const cut = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length * 0.6));
    expect(await seen(Buffer.from('not an image'))).toBe('unprocessable');
    expect(await seen(Buffer.alloc(0))).toBe('unprocessable');
    expect(await seen(cut(png))).toBe('unprocessable');
    expect(await seen(cut(await gradient(200, 200, 3).webp().toBuffer()))).toBe('unprocessable');
    expect(await seen(cut(jpeg))).toEqual({ mime: 'image/jpeg', width: 200, height: 200, format: 'jpeg', channels: 3, same: true });
    expect(await seen(await gradient(4, 2, 3).tiff().toBuffer())).toBe('unprocessable');
  });

  test('a header claiming more pixels than the bound is refused before anything is decoded', async () => {
    const header = await sharp({ create: { width: 20000, height: 20000, channels: 3, background: '#000' }, limitInputPixels: false }).png({ compressionLevel: 9 }).toBuffer();
    expect(await seen(header)).toBe('unprocessable');
  });
});

describe('imageDataUrlBytes', () => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8Dwn52BAUIBACA7BAvR/u16AAAAAElFTkSuQmCC';
  test('takes data URLs as the reference does', () => {
    const bytes = Buffer.from(png, 'base64');
    for (const url of [`data:image/png;base64,${png}`, `DATA:image/png;BASE64,${png}`, `data:image/jpeg;base64,${png}`, `data:text/plain;name=a.png;base64,${png}`]) {
      expect(imageDataUrlBytes(url)).toEqual(bytes);
    }
    for (const url of ['data:image/png,abc', 'data:image/png;base64', `data:image/png;base64,${png.slice(0, 20)}!!${png.slice(20)}`, `data:image/png;base64,${png.slice(0, 20)}\n${png.slice(20)}`, 'data:image/png;base64,YWJjZA', 'data:image/png;base64,AB==', 'https://example.com/a.png']) {
      expect(imageDataUrlBytes(url)).toBeNull();
    }
  });
});
