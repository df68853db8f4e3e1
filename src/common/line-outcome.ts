// What one input line is, decided in one place for both threads: the main thread classifies
// the lines it parses itself, and the line-parser worker classifies the large ones it is
// given, with the same decoder and the same parser, so both get exactly the same answers.
import { JsonTooLargeError, parseJson, type ParsedJson } from './json-text.js';

/**
 * A line, read: parsed, past MAX_JSON_VALUES (answered like a line that is too long), not
 * JSON as serde_json reads it, or (for bytes) not UTF-8.
 */
export type LineOutcome =
  | { kind: 'parsed'; parsed: ParsedJson }
  /** `head`: the first HEAD_CHARS characters, where the id of a request would show. */
  | { kind: 'tooLarge'; head: string; chars: number }
  | { kind: 'syntaxError'; reason: string; chars: number }
  | { kind: 'invalidUtf8' };

// As much of a line as the transport keeps of an oversized one, for finding its request id.
export const HEAD_CHARS = 4096;

// ignoreBOM keeps a leading U+FEFF in the text: serde_json does not skip it, so neither may we.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of a line's bytes, or null when they are not UTF-8 (the reference's `lines()` fails there). */
export function decodeUtf8Line(bytes: Uint8Array): string | null {
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/** Parses one line of text as the reference would read it. */
export function parseLine(text: string): LineOutcome {
  try {
    return { kind: 'parsed', parsed: parseJson(text) };
  } catch (error) {
    if (error instanceof JsonTooLargeError) return { kind: 'tooLarge', head: text.slice(0, HEAD_CHARS), chars: text.length };
    return { kind: 'syntaxError', reason: error instanceof Error ? error.message : String(error), chars: text.length };
  }
}

/** Decodes and parses one line's bytes. */
export function parseLineBytes(bytes: Uint8Array): LineOutcome {
  const text = decodeUtf8Line(bytes);
  return text === null ? { kind: 'invalidUtf8' } : parseLine(text);
}
