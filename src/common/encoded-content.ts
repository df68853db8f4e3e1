// A turn's user input, serialized and encoded where it arrives in the pool worker, so the main
// thread never escapes or encodes a multi-megabyte text: it echoes the input twice
// (item/started and item/completed of the user message), which for a 10 MB turn cost the main
// thread two JSON.stringify, two UTF-8 encodings and their garbage, and stalled every other
// connection for that long (bench case `huge-line`).
import type { PostedText } from './actor-messages.js';
import type { UserInput } from './wire-types.js';

/** Input below this many characters is cheaper to serialize where it is sent. */
export const ENCODE_IN_WORKER_CHARS = 64 * 1024;

/**
 * Whether a turn's input is large: then the worker encodes it, and its user-message event
 * carries that encoding in place of the input, which the main thread keeps from the turn/start
 * it sent (a structured clone of 10 MB of text back would cost the main thread its decoding;
 * bench case `huge-line`).
 */
export function isLargeInput(content: readonly UserInput[]): boolean {
  let chars = 0;
  for (const part of content) if (part.type === 'text') chars += part.text.length;
  return chars >= ENCODE_IN_WORKER_CHARS;
}

/**
 * The UTF-8 bytes of `JSON.stringify(content)`, alone in their ArrayBuffer (so they can be
 * transferred, not copied), when the input's text is large; otherwise null.
 */
export function encodeLargeContent(content: readonly UserInput[]): Uint8Array | null {
  if (!isLargeInput(content)) return null;
  return ownedUtf8(JSON.stringify(content));
}

/** The same bytes as a Buffer, not copied: a Uint8Array that crossed threads arrives without Buffer's methods. */
export function bufferView(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** `text` as UTF-8, alone in its ArrayBuffer, so that a transfer may take it whole. */
export function ownedUtf8(text: string): Uint8Array {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  // A pooled or oversized backing store: copy into one the transfer may take whole.
  const own = new Uint8Array(bytes.byteLength);
  own.set(bytes);
  return own;
}

/**
 * Main side: a turn's input as posted to its pool worker. A text part whose text arrived as
 * UTF-8 bytes (`utf8Of`) goes as those bytes, listed for transfer, instead of being cloned.
 */
export function postedInput(input: readonly UserInput[], utf8Of: (part: UserInput) => Uint8Array | undefined): { input: Array<UserInput | PostedText>; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const posted = input.map((part): UserInput | PostedText => {
    if (part.type !== 'text') return part;
    const utf8 = utf8Of(part);
    if (utf8 === undefined) return part;
    transfer.push(utf8.buffer as ArrayBuffer);
    return { type: 'text', text: '', text_elements: part.text_elements, utf8 };
  });
  return { input: posted, transfer };
}

/** Worker side: the input back as sent, each posted text decoded from its bytes. */
export function receivedInput(input: ReadonlyArray<UserInput | PostedText>): UserInput[] {
  return input.map((part) => ('utf8' in part ? { type: 'text', text: bufferView(part.utf8).toString('utf8'), text_elements: part.text_elements } : part));
}
