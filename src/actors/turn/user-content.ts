// A user message as the model is given it (codex 0.171.0, probed: docs/tools.md, "Images"),
// the same whether it opens a turn or is steered into one: one part per text, in input order;
// an image, inline or a local file read here in the worker, prepared as the reference prepares
// it (image-part.ts) and sent as a data URL with detail "auto" when the client chose it,
// "high" otherwise; a local one between `<image name=[Image #N] path="…">` and `</image>`, N
// counting every image of the message (it starts again at 1 in the next message). An image
// that cannot be read or prepared becomes the reference's text.
import type { ConversationMessage, UserInput } from '../../common/wire-types.js';
import { readLocalImage } from './local-image-file.js';
import { preparePromptImage } from './prompt-image.js';
import { inlineImagePart, preparedImagePart, type LabelledPart } from './image-part.js';
import { textOf } from './model-calls.js';

/** The model's content parts of a user message, and each part's kind as the history labels it. */
export interface UserContent {
  parts: unknown[];
  kinds: string[];
}

// The details the reference passes through; any other is refused with a text in the image's place.
const SUPPORTED_DETAILS = new Set(['high', 'original', 'auto']);

/** Whether the message has an image: only then does making its parts take any work. */
export function carriesImages(input: readonly UserInput[]): boolean {
  return input.some((part) => part.type === 'image' || part.type === 'localImage');
}

/** The parts of a message without images: one per text, made at once. */
export function textContentOf(input: readonly UserInput[]): UserContent {
  const texts = input.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  return { parts: texts.map((text) => ({ type: 'input_text', text })), kinds: texts.map(() => 'user.text') };
}

/** The message as the turn's conversation keeps it: its text, and its parts unless its text says the same. */
export function conversationMessageOf(input: readonly UserInput[], content: UserContent): ConversationMessage {
  const text = textOf(input);
  return saysNoMore(content.parts, text) ? { role: 'user', text } : { role: 'user', text, parts: content.parts };
}

// The model is given the same by the text alone: no parts, or the one text part it is.
function saysNoMore(parts: readonly unknown[], text: string): boolean {
  if (parts.length === 0) return true;
  const only = parts.length === 1 ? (parts[0] as { type?: unknown; text?: unknown }) : null;
  return only?.type === 'input_text' && only.text === text;
}

/** The message's parts, its images read and prepared. */
export async function userContentOf(input: readonly UserInput[]): Promise<UserContent> {
  if (!carriesImages(input)) return textContentOf(input);
  const content: UserContent = { parts: [], kinds: [] };
  const add = ([part, kind]: LabelledPart) => {
    content.parts.push(part);
    content.kinds.push(kind);
  };
  let images = 0;
  for (const part of input) {
    if (part.type === 'text') add([{ type: 'input_text', text: part.text }, 'user.text']);
    else if (part.type === 'image') {
      images += 1;
      const refused = refusedDetail(part.detail);
      add(refused ?? (await inlineImagePart(part.url, part.detail)));
    } else if (part.type === 'localImage') {
      images += 1;
      const read = await readLocalImage(part.path);
      // The reference labels this text the user's, not a preparation error.
      if (read.kind === 'unreadable') {
        add([{ type: 'input_text', text: `Codex could not read the local image at \`${part.path}\`: ${read.reason}` }, 'user.text']);
        continue;
      }
      add([{ type: 'input_text', text: `<image name=[Image #${images}] path=${JSON.stringify(part.path)}>` }, 'user.text']);
      add(refusedDetail(part.detail) ?? preparedImagePart(await preparePromptImage(read.bytes, part.detail === 'original'), part.detail));
      add([{ type: 'input_text', text: '</image>' }, 'user.text']);
    }
  }
  return content;
}

function refusedDetail(detail: string | null | undefined): LabelledPart | null {
  if (detail == null || SUPPORTED_DETAILS.has(detail)) return null;
  return [{ type: 'input_text', text: `image content omitted because detail '${detail}' is not supported; use 'high', 'original', or 'auto'` }, 'images.preparation_error'];
}
