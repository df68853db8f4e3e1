// An image as the model is sent it, made the way codex 0.171.0 makes it (probed: docs/tools.md,
// "Images"). The bytes say what it is: PNG, JPEG, GIF or WebP, anything else cannot be
// processed, nor can bytes that do not decode. An image whose size the rule keeps
// (prompt-image-size.ts; every image when the detail is "original") goes as its own bytes,
// except a GIF, which becomes a PNG; a larger one is resized to exactly the rule's size with a
// triangle filter and encoded as it came: PNG as 8-bit RGBA, JPEG at quality 85 without chroma
// subsampling, WebP lossless, a GIF as PNG, with its ICC profile and EXIF kept and its
// orientation not applied.
//
// The work is sharp's (libvips), on the libuv pool, so the worker's event loop goes on serving
// the other threads meanwhile. It is bounded where the reference is not: at most
// MAX_DECODED_PIXELS decoded (the reference tries any size and can run out of memory), a
// deadline per image, and a result the model request can carry.
import type { FailOnOptions, Sharp, SharpInput, SharpOptions } from 'sharp';
import { promptImageSize } from './prompt-image-size.js';
import { sniffImage } from './image-type.js';

export type PreparedImage = { kind: 'image'; mime: string; bytes: Buffer } | { kind: 'unprocessable' } | { kind: 'tooLarge' };

// sharp's own default bound (16383×16383): a decompression bomb stops at the header.
const MAX_DECODED_PIXELS = 0x3fff * 0x3fff;
// Past this an image is not sent: its data URL, in the request body and the rollout line, must
// stay within what a JavaScript string can hold.
const MAX_SENT_BYTES = 256 * 1024 * 1024;
const DEADLINE_SECONDS = 60;
// Each image holds a libuv thread while libvips works; two at a time leave the rest of the
// pool to the worker's file reads and writes.
const CONCURRENT_IMAGES = 2;

type SharpFactory = (input?: SharpInput, options?: SharpOptions) => Sharp;
let loaded: Promise<SharpFactory> | null = null;

// Loaded on the first image only: a worker that never sees one never pays for libvips.
function loadSharp(): Promise<SharpFactory> {
  loaded ??= import('sharp').then((module) => {
    const sharp = module.default;
    // Each image is seen once; libvips's operation cache would only hold its memory.
    sharp.cache(false);
    return sharp as SharpFactory;
  });
  return loaded;
}

let running = 0;
const waiting: Array<() => void> = [];

async function gated<T>(work: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENT_IMAGES) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/** `bytes` ready for the model: resized to fit unless `keepSize` (detail "original"). */
export async function preparePromptImage(bytes: Buffer, keepSize: boolean): Promise<PreparedImage> {
  const mime = sniffImage(bytes);
  if (mime === null) return { kind: 'unprocessable' };
  const sharp = await loadSharp();
  const prepared = await gated(() => encoded(sharp, bytes, mime, keepSize)).catch((): PreparedImage => ({ kind: 'unprocessable' }));
  return prepared.kind === 'image' && prepared.bytes.length > MAX_SENT_BYTES ? { kind: 'tooLarge' } : prepared;
}

async function encoded(sharp: SharpFactory, bytes: Buffer, mime: string, keepSize: boolean): Promise<PreparedImage> {
  const input: SharpOptions = {
    // The reference's JPEG decoder takes a truncated file (the rest grey); its PNG, GIF and WebP
    // decoders refuse one, and a PNG chunk whose checksum is wrong.
    failOn: (mime === 'image/jpeg' ? 'none' : 'warning') satisfies FailOnOptions,
    limitInputPixels: MAX_DECODED_PIXELS,
  };
  const image = (): Sharp => sharp(bytes, input).timeout({ seconds: DEADLINE_SECONDS });
  const { width, height, icc, exif, space } = await image().metadata();
  if (width === undefined || height === undefined) return { kind: 'unprocessable' };
  const size = keepSize ? { width, height } : promptImageSize(width, height);
  const resized = size.width !== width || size.height !== height;
  if (!resized && mime !== 'image/gif') {
    // Sent as it is, once it is known to decode: every pixel is read into a 1×1 average.
    await image().resize(1, 1, { fit: 'fill' }).raw().toBuffer();
    return { kind: 'image', mime, bytes };
  }
  // What the image carries goes with it, and nothing else (sharp would add an EXIF block); a
  // CMYK profile does not describe the RGB the reference converts such a JPEG to.
  let pipeline = image();
  if (icc !== undefined && space !== 'cmyk') pipeline = pipeline.keepIccProfile();
  if (exif !== undefined) pipeline = pipeline.keepExif();
  if (resized) pipeline = pipeline.resize(size.width, size.height, { fit: 'fill', kernel: 'linear', fastShrinkOnLoad: false });
  pipeline = pipeline.toColourspace('srgb');
  if (mime === 'image/jpeg') {
    return { kind: 'image', mime, bytes: await pipeline.removeAlpha().jpeg({ quality: 85, chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer() };
  }
  if (mime === 'image/webp') return { kind: 'image', mime, bytes: await pipeline.ensureAlpha().webp({ lossless: true }).toBuffer() };
  return { kind: 'image', mime: 'image/png', bytes: await pipeline.ensureAlpha().png({ adaptiveFiltering: true }).toBuffer() };
}
