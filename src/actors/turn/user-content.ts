// A user message as the model is given it, when it carries images (codex 0.171.0, probed):
// parts in input order; an inline image as `input_image` (detail "high" unless the client
// chose one the reference supports); a local image read here, in the worker, and sent as a
// data URL between `<image name=[Image #N] path="…">` and `</image>`, N counting every image
// of the message. A file that cannot be read, or is no image, becomes the reference's text.
// Text-only input needs none of this: its message is its text (null).
import { readFile } from 'node:fs/promises';
import { ioErrorText } from '../../common/io-error-text.js';
import type { UserInput } from '../../common/wire-types.js';

/** The model's content parts of a user message, and each part's kind as the history labels it. */
export interface UserContent {
  parts: unknown[];
  kinds: string[];
}

// The details the reference passes through; any other is refused with a text in the image's place.
const SUPPORTED_DETAILS = new Set(['high', 'original', 'auto']);

/** Whether the message has an image: only then is it more than its text. */
export function carriesImages(input: readonly UserInput[]): boolean {
  return input.some((part) => part.type === 'image' || part.type === 'localImage');
}

/** The message's parts, or null when it has no image (its text is the message). */
export async function userContentOf(input: readonly UserInput[]): Promise<UserContent | null> {
  if (!carriesImages(input)) return null;
  const content: UserContent = { parts: [], kinds: [] };
  const add = (part: unknown, kind: string) => {
    content.parts.push(part);
    content.kinds.push(kind);
  };
  let images = 0;
  for (const part of input) {
    if (part.type === 'text') add({ type: 'input_text', text: part.text }, 'user.text');
    else if (part.type === 'image') {
      images += 1;
      const refused = refusedDetail(part.detail);
      if (refused !== null) add({ type: 'input_text', text: refused }, 'images.preparation_error');
      else add({ type: 'input_image', image_url: part.url, detail: 'high' }, 'user.image');
    } else if (part.type === 'localImage') {
      images += 1;
      const read = await readImage(part.path);
      if (read.kind === 'unreadable') {
        add({ type: 'input_text', text: `Codex could not read the local image at \`${part.path}\`: ${read.reason}` }, 'images.preparation_error');
        continue;
      }
      add({ type: 'input_text', text: `<image name=[Image #${images}] path=${JSON.stringify(part.path)}>` }, 'user.text');
      if (read.kind === 'image') add({ type: 'input_image', image_url: read.dataUrl, detail: 'high' }, 'user.image');
      else add({ type: 'input_text', text: 'image content omitted because it could not be processed' }, 'images.preparation_error');
      add({ type: 'input_text', text: '</image>' }, 'user.text');
    }
  }
  return content;
}

function refusedDetail(detail: string | null | undefined): string | null {
  if (detail == null || SUPPORTED_DETAILS.has(detail)) return null;
  return `image content omitted because detail '${detail}' is not supported; use 'high', 'original', or 'auto'`;
}

type ReadImage = { kind: 'image'; dataUrl: string } | { kind: 'notImage' } | { kind: 'unreadable'; reason: string };

async function readImage(path: string): Promise<ReadImage> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    return { kind: 'unreadable', reason: ioErrorText(error) };
  }
  const mime = sniffImage(bytes);
  return mime === null ? { kind: 'notImage' } : { kind: 'image', dataUrl: `data:${mime};base64,${bytes.toString('base64')}` };
}

/** The image type the bytes are, by their signature (as the reference takes it from the content, not the name). */
export function sniffImage(bytes: Buffer): string | null {
  const starts = (signature: number[], at = 0) => signature.every((byte, i) => bytes[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return null;
}
