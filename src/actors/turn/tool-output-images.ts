// The images of a tool's output, prepared for the model as codex 0.171.0 prepares them (probed:
// docs/tools.md, "Images"): each `input_image` of a client's answer (its data URL, `data:` in
// any case) is resized and re-encoded as a prompt image is, and sent with detail "high"; one
// that does not decode, or is no image, becomes `image content omitted because it could not be
// processed`. The history keeps the output as the model is given it; the call's item keeps the
// client's URL.
import type { ToolAnswer } from '../../common/actor-messages.js';
import { workerLog } from '../worker-log.js';
import { inlineImagePart, UNPROCESSABLE_TEXT } from './image-part.js';

/** `answer` with the images of its outputs prepared; the same answer when it has none. */
export async function toolOutputWithImages(answer: ToolAnswer): Promise<ToolAnswer> {
  if (!hasImage(answer.output) && !hasImage(answer.modelOutput)) return answer;
  const output = await withImages(answer.output);
  return { ...answer, output, ...(answer.modelOutput === undefined ? {} : { modelOutput: await withImages(answer.modelOutput) }) };
}

function hasImage(output: string | unknown[] | undefined): output is unknown[] {
  return Array.isArray(output) && output.some(isImagePart);
}

function isImagePart(part: unknown): part is { type: 'input_image'; image_url: string } {
  const value = part as { type?: unknown; image_url?: unknown } | null;
  return value?.type === 'input_image' && typeof value.image_url === 'string';
}

async function withImages(output: string | unknown[]): Promise<string | unknown[]> {
  if (!Array.isArray(output)) return output;
  return Promise.all(output.map(async (part) => (isImagePart(part) ? await prepared(part.image_url) : part)));
}

async function prepared(url: string): Promise<unknown> {
  try {
    return (await inlineImagePart(url, null))[0];
  } catch (error) {
    workerLog('error', 'a tool output image could not be prepared', { error: String(error) });
    return { type: 'input_text', text: UNPROCESSABLE_TEXT };
  }
}
