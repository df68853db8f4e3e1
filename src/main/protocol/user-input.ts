// `UserInput`, the items of turn/start's `input`: an internally tagged enum. Text is decoded
// fully (the host sends it to the model); the other variants are checked the way the
// reference checks them and kept as sent.
import type { TextElement, UserInput } from '../../common/wire-types.js';
import { DecodeError, optional, pathString, string, untagged, usize, withDefault, arrayOf, type Decoder } from './decode.js';
import { struct, tagOf } from './decode-struct.js';
import { toPlainJson, type JsonValue } from '../../common/json-text.js';
import { utf8Of } from '../../common/parsed-json-transfer.js';

/** The variants in the reference's declaration order: an integer `type` picks one by index. */
export const USER_INPUT_TYPES = ['text', 'image', 'localImage', 'audio', 'localAudio', 'skill', 'mention'] as const;

const byteRange = struct('ByteRange', { start: usize, end: usize });

const textElement: Decoder<TextElement> = (value) => {
  const decoded = struct('TextElement', { byteRange, placeholder: optional(string) })(value);
  return { byteRange: decoded.byteRange, placeholder: decoded.placeholder };
};

const textInput = struct('TextUserInput', {
  text: string,
  text_elements: withDefault(arrayOf(textElement), () => []),
});

// `ImageReference` and `AudioReference` are untagged and flattened into their variant.
const reference = (name: string): Decoder<unknown> =>
  untagged<unknown>(name, [struct(`${name}Url`, { url: string }), struct(`${name}FileId`, { fileId: string })]);

/** Required fields of each non-text variant, in the order the reference reports them missing. */
const VARIANT_CHECKS: Record<Exclude<(typeof USER_INPUT_TYPES)[number], 'text'>, Decoder<unknown>> = {
  image: reference('ImageReference'),
  localImage: struct('LocalImage', { path: pathString }),
  audio: reference('AudioReference'),
  localAudio: struct('LocalAudio', { path: pathString }),
  skill: struct('Skill', { name: string, path: pathString }),
  mention: struct('Mention', { name: string, path: pathString }),
};

function detailOf(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

const textUtf8 = new WeakMap<UserInput, Uint8Array>();

/**
 * The UTF-8 bytes of a decoded text part's text, when it arrived with them (a large line
 * parsed off the main thread: parsed-json-transfer.ts), once: the caller transfers them on.
 */
export function takeTextUtf8(part: UserInput): Uint8Array | undefined {
  const utf8 = textUtf8.get(part);
  textUtf8.delete(part);
  return utf8;
}

export const userInput: Decoder<UserInput> = (value) => {
  const type = tagOf('UserInput', value, USER_INPUT_TYPES);
  const object = value as Record<string, unknown>;
  if (type === 'text') {
    const text = textInput(object);
    const decoded: UserInput = { type: 'text', text: text.text, text_elements: text.text_elements };
    // A large text parsed off the main thread came with its UTF-8 bytes: they follow the part.
    const utf8 = utf8Of(object, 'text');
    if (utf8 !== undefined) textUtf8.set(decoded, utf8);
    return decoded;
  }
  const check = VARIANT_CHECKS[type as keyof typeof VARIANT_CHECKS];
  if (check === undefined) throw new DecodeError(`unknown variant \`${type}\``);
  check(object);
  // Images are echoed as the reference echoes them: `detail` always present, in its place.
  if (type === 'image' && typeof object.url === 'string') return { type, url: object.url, detail: detailOf(object.detail) };
  if (type === 'localImage') return { type, detail: detailOf(object.detail), path: object.path as string };
  return { ...(toPlainJson(object as JsonValue) as object), type } as UserInput;
};
