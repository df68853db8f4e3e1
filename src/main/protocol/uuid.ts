// UUID parsing with the exact error texts of the Rust `uuid` crate (1.x), which the
// reference uses for thread ids, and a UUIDv7 generator for new thread, turn and item ids.
import { builtin } from '../lazy-builtin.js';

export type UuidParse = { ok: true; value: string } | { ok: false; error: string };

const HEX = /^[0-9a-fA-F]$/;
// Group starts of the hyphenated form; the crate reports group lengths against these.
const BLOCK_STARTS = [0, 9, 14, 19, 24] as const;
const GROUP_LENGTHS = [8, 4, 4, 4, 12] as const;

/**
 * Parses any form `Uuid::parse_str` accepts (simple, hyphenated, braced, urn) and returns
 * the lowercase hyphenated form, or the crate's error message.
 */
export function parseUuid(input: string): UuidParse {
  let body = input;
  if (input.length === 38 && input.startsWith('{') && input.endsWith('}')) body = input.slice(1, -1);
  else if (input.length === 45 && input.startsWith('urn:uuid:')) body = input.slice(9);
  if (isHyphenated(body)) return { ok: true, value: body.toLowerCase() };
  if (body === input && isSimple(body)) {
    const h = body.toLowerCase();
    return { ok: true, value: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` };
  }
  return { ok: false, error: describeInvalidUuid(input) };
}

// Every request about a thread checks its id here. A character loop, not a regular
// expression: V8 interprets a regex at its first use and compiles it to machine code at its
// second, which a process's first unsubscribe or read paid on its request path (bench case
// `idle-unload`), and the loop is no slower warm.
function isHyphenated(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i += 1) {
    const code = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? code !== 0x2d : !isHexCode(code)) return false;
  }
  return true;
}

function isSimple(text: string): boolean {
  if (text.length !== 32) return false;
  for (let i = 0; i < 32; i += 1) if (!isHexCode(text.charCodeAt(i))) return false;
  return true;
}

/** 0-9, A-F, a-f. */
const isHexCode = (code: number): boolean => (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x66);

// A port of `InvalidUuid::into_err`: decide which of the crate's errors the input earns.
function describeInvalidUuid(input: string): string {
  let body = input;
  let offset = 0;
  let simple = true;
  if (input.length >= 2 && input.startsWith('{') && input.endsWith('}')) {
    body = input.slice(1, -1);
    offset = 1;
    simple = false;
  } else if (input.startsWith('urn:uuid:')) {
    body = input.slice(9);
    offset = 9;
    simple = false;
  }
  let hyphens = 0;
  const groupBounds = [0, 0, 0, 0];
  // Indices are byte offsets in UTF-8, as Rust's char_indices reports them, plus one.
  let byteIndex = 0;
  for (const character of body) {
    const bytes = Buffer.byteLength(character);
    if (bytes > 1) return invalidCharacter(character, byteIndex + offset + 1);
    if (character === '-') {
      if (hyphens < 4) groupBounds[hyphens] = byteIndex;
      hyphens += 1;
    } else if (!HEX.test(character)) {
      return invalidCharacter(character, byteIndex + offset + 1);
    }
    byteIndex += bytes;
  }
  const inputBytes = Buffer.byteLength(input);
  if (hyphens === 0 && simple) return `invalid length: expected length 32 for simple format, found ${inputBytes}`;
  if (hyphens !== 4) return `invalid group count: expected 5, found ${hyphens + 1}`;
  for (let group = 0; group < 4; group += 1) {
    const bound = groupBounds[group]!;
    if (bound !== BLOCK_STARTS[group + 1]! - 1) {
      return groupLength(group, bound - BLOCK_STARTS[group]!);
    }
  }
  return groupLength(4, inputBytes - BLOCK_STARTS[4]);
}

const invalidCharacter = (character: string, index: number): string =>
  `invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${character}\` at ${index}`;

const groupLength = (group: number, found: number): string =>
  `invalid group length in group ${group}: expected ${GROUP_LENGTHS[group]}, found ${found}`;


// UUIDv7: 48-bit Unix ms timestamp, version and variant bits, random rest. A per-process
// counter in the random field keeps ids minted in the same millisecond sorted, which
// `thread/loaded/list` relies on for creation order.
let lastMs = 0;
let sequence = 0;
const randomBytes = Buffer.alloc(16);
// Random bytes are drawn 4 KiB (256 ids) at a time: one getrandom call per id cost a system
// call on every thread/start and turn/start, on the main thread (bench case `churn`).
const RANDOM_POOL_BYTES = 4096;
const randomPool = Buffer.alloc(RANDOM_POOL_BYTES);
let randomPoolOffset = RANDOM_POOL_BYTES;

function refillRandomPool(): void {
  builtin<typeof import('node:crypto')>('node:crypto').randomFillSync(randomPool);
  randomPoolOffset = 0;
}

/**
 * Fills the random pool now, if it is spent, so that the next id needs no system call; the
 * first call loads crypto (~20 internal modules; bench case `cold-start`). The host calls it
 * in the background after its first request (host/warm-up.ts), not on the request path of its
 * first thread/start.
 */
export function prepareUuids(): void {
  if (randomPoolOffset + randomBytes.length > RANDOM_POOL_BYTES) refillRandomPool();
}

function nextRandomBytes(): void {
  prepareUuids();
  randomPool.copy(randomBytes, 0, randomPoolOffset, randomPoolOffset + randomBytes.length);
  // Used bytes are zeroed: the same random bits must never serve two ids, even through a bug.
  randomPool.fill(0, randomPoolOffset, randomPoolOffset + randomBytes.length);
  randomPoolOffset += randomBytes.length;
}

/** Mints a UUIDv7 string, monotonic within this process. */
export function uuidv7(nowMs: number = Date.now()): string {
  nextRandomBytes();
  if (nowMs <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1;
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    sequence = randomBytes[6]! & 0x7f;
  }
  const b = randomBytes;
  b[0] = Math.floor(nowMs / 2 ** 40) & 0xff;
  b[1] = Math.floor(nowMs / 2 ** 32) & 0xff;
  b[2] = (nowMs >>> 24) & 0xff;
  b[3] = (nowMs >>> 16) & 0xff;
  b[4] = (nowMs >>> 8) & 0xff;
  b[5] = nowMs & 0xff;
  b[6] = 0x70 | ((sequence >>> 8) & 0x0f);
  b[7] = sequence & 0xff;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
