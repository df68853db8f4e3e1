// A user message as the model is given it, when it carries images (codex 0.171.0, probed:
// docs/tools.md, "Images"): parts in input order; an image, inline or a local file read here
// in the worker, prepared as the reference prepares it (prompt-image.ts) and sent as a data URL
// with detail "auto" when the client chose it, "high" otherwise; a local one between
// `<image name=[Image #N] path="…">` and `</image>`, N counting every image of the message. An
// image that cannot be read or prepared becomes the reference's text.
// Text-only input needs none of this: its message is its text (null).
import type { UserInput } from '../../common/wire-types.js';
import { imageDataUrlBytes } from './image-data-url.js';
import { readLocalImage } from './local-image-file.js';
import { preparePromptImage, type PreparedImage } from './prompt-image.js';

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
      else {
        const bytes = imageDataUrlBytes(part.url);
        const prepared: PreparedImage = bytes === null ? { kind: 'unprocessable' } : bytes === 'tooLarge' ? { kind: 'tooLarge' } : await preparePromptImage(bytes, part.detail === 'original');
        add(...imagePart(prepared, part.detail));
      }
    } else if (part.type === 'localImage') {
      images += 1;
      const read = await readLocalImage(part.path);
      if (read.kind === 'unreadable') {
        add({ type: 'input_text', text: `Codex could not read the local image at \`${part.path}\`: ${read.reason}` }, 'images.preparation_error');
        continue;
      }
      add({ type: 'input_text', text: `<image name=[Image #${images}] path=${JSON.stringify(part.path)}>` }, 'user.text');
      const refused = refusedDetail(part.detail);
      if (refused !== null) add({ type: 'input_text', text: refused }, 'images.preparation_error');
      else add(...imagePart(await preparePromptImage(read.bytes, part.detail === 'original'), part.detail));
      add({ type: 'input_text', text: '</image>' }, 'user.text');
    }
  }
  return content;
}

function refusedDetail(detail: string | null | undefined): string | null {
  if (detail == null || SUPPORTED_DETAILS.has(detail)) return null;
  return `image content omitted because detail '${detail}' is not supported; use 'high', 'original', or 'auto'`;
}

/** The part an image becomes, and its kind: the image, or the reference's text for why not. */
function imagePart(prepared: PreparedImage, detail: string | null | undefined): [unknown, string] {
  if (prepared.kind === 'image') {
    // "original" keeps the image's size; the model is told "high", as the reference tells a
    // model it has no metadata for.
    const url = `data:${prepared.mime};base64,${prepared.bytes.toString('base64')}`;
    return [{ type: 'input_image', image_url: url, detail: detail === 'auto' ? 'auto' : 'high' }, 'user.image'];
  }
  const text = prepared.kind === 'tooLarge' ? 'image content omitted because it exceeded the supported size limit; use a smaller image' : 'image content omitted because it could not be processed';
  return [{ type: 'input_text', text }, 'images.preparation_error'];
}
