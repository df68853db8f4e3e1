// An image as one content part of what the model is sent, made the way codex 0.171.0 makes it
// (probed: docs/tools.md, "Images"): a prepared image (prompt-image.ts) as a data URL of the
// media type its bytes say, or the reference's text for why it is not there. A user's message
// and a tool's output (a client's `inputImage`) make their image parts alike.
import { imageDataUrlBytes } from './image-data-url.js';
import { preparePromptImage, type PreparedImage } from './prompt-image.js';

/** A part and its kind, as the history labels a user message's parts. */
export type LabelledPart = [part: unknown, kind: string];

export const UNPROCESSABLE_TEXT = 'image content omitted because it could not be processed';
const TOO_LARGE_TEXT = 'image content omitted because it exceeded the supported size limit; use a smaller image';

/** An inline image (a data URL, `data:` in any case) ready for the model; `detail` as the client gave it. */
export async function inlineImagePart(url: string, detail: string | null | undefined): Promise<LabelledPart> {
  const bytes = imageDataUrlBytes(url);
  const prepared: PreparedImage = bytes === null ? { kind: 'unprocessable' } : bytes === 'tooLarge' ? { kind: 'tooLarge' } : await preparePromptImage(bytes, detail === 'original');
  return preparedImagePart(prepared, detail);
}

/** The part an image becomes, and its kind: the image, or the reference's text for why not. */
export function preparedImagePart(prepared: PreparedImage, detail: string | null | undefined): LabelledPart {
  if (prepared.kind === 'image') {
    // "original" keeps the image's size, and the history its detail; the request says "high"
    // (responses-body.ts). Any other detail is "high".
    const url = `data:${prepared.mime};base64,${prepared.bytes.toString('base64')}`;
    return [{ type: 'input_image', image_url: url, detail: detail === 'auto' || detail === 'original' ? detail : 'high' }, 'user.image'];
  }
  return [{ type: 'input_text', text: prepared.kind === 'tooLarge' ? TOO_LARGE_TEXT : UNPROCESSABLE_TEXT }, 'images.preparation_error'];
}
