// Base64 as the reference's decoder takes it (the Rust `base64` crate's STANDARD engine): the
// standard alphabet, canonical padding, no whitespace, and no bits left over in the last
// symbol. Node's own decoder skips whatever it does not understand, so a client's bad bytes
// would be written instead of refused. The errors are the crate's words.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUE = new Int8Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i += 1) VALUE[ALPHABET.charCodeAt(i)] = i;
const PAD = 0x3d;

/** Why a text is not the reference's base64. */
export class Base64Error extends Error {}

/** The bytes `text` encodes; throws a Base64Error with the crate's message otherwise. */
export function decodeStrictBase64(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const n = bytes.length;
  // The crate decodes whole quads first and the last one (or the short rest) on its own.
  const suffixStart = n % 4 === 0 ? Math.max(0, n - 4) : n - (n % 4);
  for (let i = 0; i < suffixStart; i += 1) {
    if (VALUE[bytes[i]!]! < 0) throw invalidSymbol(i, bytes[i]!);
  }
  let symbols = 0;
  let pads = 0;
  let firstPad = -1;
  for (let i = suffixStart; i < n; i += 1) {
    const byte = bytes[i]!;
    if (byte === PAD) {
      if (i - suffixStart < 2) throw invalidSymbol(i, byte);
      if (firstPad < 0) firstPad = i;
      pads += 1;
    } else if (VALUE[byte]! < 0) {
      throw invalidSymbol(i, byte);
    } else if (pads > 0) {
      throw invalidSymbol(firstPad, PAD);
    } else {
      symbols += 1;
    }
  }
  if (symbols === 1) throw new Base64Error(`Invalid input length: ${n}`);
  if (n > 0 && symbols + pads !== 4) throw new Base64Error('Invalid padding');
  // Two symbols carry one byte (4 bits left over), three carry two (2 bits left over).
  const spare = symbols === 2 ? 0x0f : symbols === 3 ? 0x03 : 0;
  const last = suffixStart + symbols - 1;
  if (spare !== 0 && (VALUE[bytes[last]!]! & spare) !== 0) throw new Base64Error(`Invalid last symbol ${bytes[last]}, offset ${last}.`);
  return Buffer.from(text, 'base64');
}

const invalidSymbol = (offset: number, byte: number) => new Base64Error(`Invalid symbol ${byte}, offset ${offset}.`);
