// What a JSON number is when the reference decodes params, and how its errors print it.
// serde_json with `arbitrary_precision` keeps the source text and, when a typed field asks,
// reads it back (`Number::deserialize_any`): an integer that fits u64 or i64; an integer
// that only fits u128/i128, which serde's buffering cannot hold, so the whole request fails;
// a float only when the text is exactly how ryu or Rust's Display would print it (`1.5`,
// `1e16`, `0.000001`), and otherwise serde_json's private one-entry map (`1e2`, `0.10`).
// All of these were observed from codex 0.171.0 (test/fixtures/bad-input/corpus.jsonl).

/** A number as a typed decoder sees it. */
export type NumberReading =
  | { kind: 'integer'; value: bigint }
  | { kind: 'float'; value: number }
  /** Fits u128/i128 but not u64/i64: fails the whole request. */
  | { kind: 'wide'; text: string; type: 'u128' | 'i128' }
  /** arbitrary_precision's private map: a typed field sees "map". */
  | { kind: 'opaque' };

const U64_MAX = 2n ** 64n - 1n;
const I64_MIN = -(2n ** 63n);
const U128_MAX = 2n ** 128n - 1n;
const I128_MIN = -(2n ** 127n);

/** Reads a number's source text the way the reference's params decoding does. */
export function readNumber(text: string): NumberReading {
  if (!/[.eE]/.test(text)) {
    const value = BigInt(text); // "-0" reads as i64 0, as Rust's `"-0".parse::<i64>()` does
    const negative = text.startsWith('-');
    if (negative ? value >= I64_MIN : value <= U64_MAX) return { kind: 'integer', value };
    if (negative ? value >= I128_MIN : value <= U128_MAX) return { kind: 'wide', text, type: negative ? 'i128' : 'u128' };
  }
  const value = Number(text);
  if (Number.isFinite(value) && (formatRyu(value) === text || formatRustDisplay(value) === text)) return { kind: 'float', value };
  return { kind: 'opaque' };
}

/** The text of a JS number, so decoders take plain numbers as well as parsed ones (-0 reads as 0). */
export function numberText(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return BigInt(value).toString();
  return formatRyu(value);
}

/** How serde_json prints a float in "invalid type: floating point `…`": ryu, with `e+` for positive exponents. */
export function formatFloatForError(value: number): string {
  return formatRyu(value).replace(/e(\d)/, 'e+$1');
}

/** Shortest round-trip digits and the decimal exponent of their first digit. */
function decompose(value: number): { negative: boolean; digits: string; exponent: number } {
  const [mantissa, exp] = Math.abs(value).toExponential().split('e') as [string, string];
  return { negative: value < 0 || Object.is(value, -0), digits: mantissa.replace('.', ''), exponent: Number(exp) };
}

/** `ryu::Buffer::format_finite`: plain up to 16 integer digits, `0.0000x` down to 1e-5, else `de-7`. */
export function formatRyu(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const { negative, digits, exponent } = decompose(value);
  const length = digits.length;
  const kk = exponent + 1; // 10^(kk-1) <= |value| < 10^kk
  const k = kk - length;
  let body: string;
  if (k >= 0 && kk <= 16) body = `${digits}${'0'.repeat(k)}.0`;
  else if (kk > 0 && kk <= 16) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else if (kk > -5 && kk <= 0) body = `0.${'0'.repeat(-kk)}${digits}`;
  else if (length === 1) body = `${digits}e${kk - 1}`;
  else body = `${digits[0]}.${digits.slice(1)}e${kk - 1}`;
  return negative ? `-${body}` : body;
}

/** Rust's `{}` for f64: the same digits, never an exponent, no `.0` on whole numbers. */
export function formatRustDisplay(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const { negative, digits, exponent } = decompose(value);
  const kk = exponent + 1;
  let body: string;
  if (kk >= digits.length) body = digits + '0'.repeat(kk - digits.length);
  else if (kk > 0) body = `${digits.slice(0, kk)}.${digits.slice(kk)}`;
  else body = `0.${'0'.repeat(-kk)}${digits}`;
  return negative ? `-${body}` : body;
}
