// An inline image's bytes, as codex 0.171.0 reads a data URL (probed: docs/tools.md, "Images"):
// `data:` in any case, the metadata before the first comma naming `base64` (any case) among its
// `;` parts, and a payload that is strict standard base64: padded, no whitespace, no stray bits.
// Its media type is not believed: the bytes say what the image is.

/** What a payload larger than this is refused as (the reference's guard against pathological input). */
export const MAX_IMAGE_INPUT_BYTES = 1024 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The image bytes of `url`, 'tooLarge' past the guard, or null when it is no base64 data URL. */
export function imageDataUrlBytes(url: string): Buffer | 'tooLarge' | null {
  if (url.slice(0, 5).toLowerCase() !== 'data:') return null;
  const comma = url.indexOf(',', 5);
  if (comma < 0) return null;
  if (!url.slice(5, comma).split(';').some((part) => part.toLowerCase() === 'base64')) return null;
  const payload = url.slice(comma + 1);
  if (payload.length > MAX_IMAGE_INPUT_BYTES) return 'tooLarge';
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) return null;
  const bytes = Buffer.from(payload, 'base64');
  // Node's decoder forgives what the reference's refuses (bits past the last byte); only a
  // payload that is its own bytes' encoding is strict.
  return bytes.toString('base64') === payload ? bytes : null;
}
