// JSON that is already serialized, spliced into an outgoing message as it is, so the main
// thread neither serializes, escapes nor encodes it again: UTF-8 bytes that arrive encoded (a
// large turn input, encoded in its pool worker: src/common/encoded-content.ts), or text the
// host keeps serialized (the unpaged thread/loaded/list, which Outgoing sends as a string).
//
// JSON.stringify cannot emit raw text, so an EncodedJson serializes as a marker string, then
// replaced by the bytes. Markers are counted: a client string that happened to equal one would
// make the count differ, and the message is then serialized plainly. A per-process nonce makes
// that unlikely (it only guards speed, so it need not come from node:crypto, which a start
// does not load before its first reply). A message without EncodedJson costs one length check.
import { bufferView } from '../../common/encoded-content.js';
import type { WireParts } from '../transport/transport.js';

const used: EncodedJson[] = [];
const MARKER = `\u0000encoded-json:${Math.random().toString(36).slice(2)}${Date.now().toString(36)}\u0000`;
/** How the marker reads once JSON.stringify has quoted and escaped it. */
const SERIALIZED_MARKER = JSON.stringify(MARKER);

export class EncodedJson {
  #parts: readonly Buffer[] | null;
  /** Set when the JSON was made as text (a reply the host keeps serialized): sent as that text. */
  readonly text: string | null;

  /**
   * `json` must be valid JSON (text, UTF-8 bytes, or pieces that are once joined): the creator
   * vouches for it. Pieces are never joined to be sent.
   */
  constructor(json: string | Buffer | readonly Buffer[]) {
    this.text = typeof json === 'string' ? json : null;
    this.#parts = typeof json === 'string' ? null : Buffer.isBuffer(json) ? [json] : json.filter((part) => part.length > 0);
  }

  /** JSON bytes that crossed from a worker (a plain Uint8Array, without Buffer's methods), not copied. */
  static of(bytes: Uint8Array): EncodedJson {
    return new EncodedJson(bufferView(bytes));
  }

  /** The JSON's bytes in order, sent as they are: one value may be kept in several pieces. */
  get parts(): readonly Buffer[] {
    return (this.#parts ??= [Buffer.from(this.text!)]);
  }

  /** The bytes in one buffer (joined, when in pieces: for the rare reader that needs them whole). */
  get bytes(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }

  toJSON(): string {
    used.push(this);
    return MARKER;
  }
}

/**
 * JSON.stringify, with every EncodedJson in `value` spliced in as its bytes: then the message is
 * its pieces in order (text around each EncodedJson, encoded, and the EncodedJson's own bytes),
 * not joined, as a large one would be copied whole to join them.
 */
export function stringifyWithEncoded(value: unknown): string | WireParts {
  used.length = 0; // left over only if an earlier stringify threw half-way
  const text = JSON.stringify(value);
  if (used.length === 0) return text;
  const parts = used.splice(0);
  const pieces = text.split(SERIALIZED_MARKER);
  if (pieces.length !== parts.length + 1) {
    // Only if a string in `value` were the marker itself: serialize plainly. The replacer sees
    // toJSON's marker, so it looks at the holder's original value.
    const plain = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      const original = this[key];
      return original instanceof EncodedJson ? (JSON.parse(original.bytes.toString()) as unknown) : v;
    });
    used.length = 0;
    return plain;
  }
  const chunks: Buffer[] = [Buffer.from(pieces[0]!)];
  parts.forEach((part, i) => chunks.push(...part.parts, Buffer.from(pieces[i + 1]!)));
  return chunks;
}
