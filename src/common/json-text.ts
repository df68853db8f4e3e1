// A JSON parser with serde_json's rules, because the reference decides what to answer from
// how serde_json reads a line, and JSON.parse reads some lines differently:
//   - numbers keep their source text (the reference is built with `arbitrary_precision`), so
//     `1.0` stays a float, `9223372036854775807` an exact id, `1e400` is accepted; only an
//     integer of at most 15 digits, which a double holds exactly, becomes a plain number;
//   - nesting deeper than 127 containers is an error (serde_json's recursion limit), which also
//     keeps the parser's own stack bounded: 100k `[` cannot overflow it;
//   - a lone surrogate escape (`"\ud800"`) is an error; only ' ', \t, \n, \r are whitespace;
//   - a line of more than MAX_JSON_VALUES values is refused (`JsonTooLargeError`): a 32 MiB
//     line of `{}` would otherwise become 11 million objects, hundreds of megabytes of heap;
//   - duplicate keys are kept last-wins (as serde_json::Value does) but reported, because the
//     reference's derived structs reject a duplicated `id`, `method`, `params` or trace field.

/** A JSON number as written: its text, as serde_json's `arbitrary_precision` keeps it. */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** The nearest double, for code that wants a plain number. */
  toJSON(): number {
    return Number(this.text);
  }
}

/**
 * A parsed JSON value. Objects are plain objects. A number is a plain `number` when it was
 * written as an integer of at most 15 digits (not `-0`), and a `JsonNumber` otherwise.
 */
export type JsonValue = null | boolean | string | number | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** A parsed line, and for each object that held a key more than once, those keys. */
export interface ParsedJson {
  value: JsonValue;
  duplicateKeys: ReadonlyMap<JsonObject, ReadonlySet<string>>;
}

/** The line is not JSON as serde_json reads it. */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonSyntaxError';
  }
}

/** The line has more values than the host will build: answered like a line that is too long. */
export class JsonTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} JSON values in one line`);
    this.name = 'JsonTooLargeError';
  }
}

// Far beyond any request of this protocol (a turn's text is one value), and small enough that
// the values of one line stay within tens of megabytes.
export const MAX_JSON_VALUES = 1_000_000;
// serde_json allows 127 nested containers: its counter starts at 128 and fails on reaching 0.
const MAX_DEPTH = 127;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// Repeated short strings and number texts share one value, so a line of many small values
// costs about what JSON.parse would, not an object per value. The cache stops growing after
// SHARED_MAX_ENTRIES distinct texts, so a line of distinct values costs no lookup table.
const SHARED_MAX_LENGTH = 16;
const SHARED_MAX_ENTRIES = 4096;
const CONTROL = /[\u0000-\u001f]/g;
const CONTROL_AT = /[\u0000-\u001f]/;

/** True when the quote at `at` is escaped: preceded by an odd number of backslashes. */
function isEscaped(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** Parses one JSON text; throws `JsonSyntaxError` where serde_json would fail, `JsonTooLargeError` past MAX_JSON_VALUES. */
export function parseJson(text: string): ParsedJson {
  return new Parser(text).parseDocument();
}

class Parser {
  #pos = 0;
  readonly #duplicates = new Map<JsonObject, Set<string>>();
  readonly #sharedStrings = new Map<string, string>();
  readonly #sharedNumbers = new Map<string, JsonNumber>();
  #values = 0;

  constructor(private readonly text: string) {}

  parseDocument(): ParsedJson {
    this.#skipWhitespace();
    const value = this.#value(1);
    this.#skipWhitespace();
    if (this.#pos !== this.text.length) this.#fail('trailing characters');
    return { value, duplicateKeys: this.#duplicates };
  }

  #value(depth: number): JsonValue {
    if (++this.#values > MAX_JSON_VALUES) throw new JsonTooLargeError(MAX_JSON_VALUES);
    const c = this.text.charCodeAt(this.#pos);
    switch (c) {
      case 0x7b: // {
        return this.#object(depth);
      case 0x5b: // [
        return this.#array(depth);
      case 0x22: // "
        return this.#string();
      case 0x74:
        return this.#literal('true', true);
      case 0x66:
        return this.#literal('false', false);
      case 0x6e:
        return this.#literal('null', null);
      default:
        return this.#number();
    }
  }

  #object(depth: number): JsonObject {
    if (depth > MAX_DEPTH) this.#fail('recursion limit exceeded');
    this.#pos += 1;
    const object: JsonObject = {};
    this.#skipWhitespace();
    if (this.#eat(0x7d)) return object;
    for (;;) {
      if (this.text.charCodeAt(this.#pos) !== 0x22) this.#fail('key must be a string');
      const key = this.#string();
      this.#skipWhitespace();
      if (!this.#eat(0x3a)) this.#fail('expected `:`');
      this.#skipWhitespace();
      const value = this.#value(depth + 1);
      if (Object.prototype.hasOwnProperty.call(object, key)) {
        const keys = this.#duplicates.get(object) ?? new Set<string>();
        this.#duplicates.set(object, keys.add(key));
      }
      // defineProperty, not assignment: a `__proto__` key must stay data, not set a prototype.
      Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      this.#skipWhitespace();
      if (this.#eat(0x7d)) return object;
      if (!this.#eat(0x2c)) this.#fail('expected `,` or `}`');
      this.#skipWhitespace();
    }
  }

  #array(depth: number): JsonValue[] {
    if (depth > MAX_DEPTH) this.#fail('recursion limit exceeded');
    this.#pos += 1;
    const array: JsonValue[] = [];
    this.#skipWhitespace();
    if (this.#eat(0x5d)) return array;
    for (;;) {
      array.push(this.#value(depth + 1));
      this.#skipWhitespace();
      if (this.#eat(0x5d)) return array;
      if (!this.#eat(0x2c)) this.#fail('expected `,` or `]`');
      this.#skipWhitespace();
    }
  }

  // Finds the closing quote with indexOf and lets the engine decode the escapes, so a long
  // string (a turn's text) costs about what JSON.parse spends on it rather than a JS loop per
  // escape; the checks JSON.parse does not make (control characters, lone surrogates) run
  // on the raw slice with one regular expression each.
  #string(): string {
    const { text } = this;
    const open = this.#pos;
    let close = text.indexOf('"', open + 1);
    while (close !== -1 && isEscaped(text, close)) close = text.indexOf('"', close + 1);
    if (close === -1) {
      this.#pos = text.length;
      this.#fail('EOF while parsing a string');
    }
    const raw = text.slice(open + 1, close);
    CONTROL.lastIndex = 0;
    if (CONTROL.test(raw)) {
      this.#pos = open + 1 + raw.search(CONTROL_AT);
      this.#fail('control character in string');
    }
    this.#pos = close + 1;
    if (!raw.includes('\\')) return raw.length <= SHARED_MAX_LENGTH ? share(this.#sharedStrings, raw, () => raw) : raw;
    let decoded: string;
    try {
      decoded = JSON.parse(`"${raw}"`) as string;
    } catch {
      this.#pos = open;
      this.#fail('invalid escape');
    }
    // Input lines are decoded strictly from UTF-8, so a lone surrogate can only come from a
    // `\uXXXX` escape, which serde_json refuses and JSON.parse accepts.
    if (raw.includes('\\u') && !decoded.isWellFormed()) {
      this.#pos = open;
      this.#fail('lone surrogate in hex escape');
    }
    return decoded;
  }



  #number(): number | JsonNumber {
    NUMBER.lastIndex = this.#pos;
    const match = NUMBER.exec(this.text);
    if (match === null || match[0].length === 0) this.#fail('expected value');
    const end = this.#pos + match[0].length;
    // JSON has no `01` or `1.`: the regex stops short there, and what follows is not a delimiter.
    const next = this.text.charCodeAt(end);
    if ((next >= 0x30 && next <= 0x39) || next === 0x2e || next === 0x65 || next === 0x45) this.#fail('invalid number');
    this.#pos = end;
    const text = match[0];
    if (text.length <= 15 && text !== '-0' && !/[.eE]/.test(text)) return Number(text);
    return text.length <= SHARED_MAX_LENGTH ? share(this.#sharedNumbers, text, () => new JsonNumber(text)) : new JsonNumber(text);
  }

  #literal<T>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.#pos)) this.#fail('expected value');
    this.#pos += word.length;
    return value;
  }

  #skipWhitespace(): void {
    const { text } = this;
    for (;;) {
      const c = text.charCodeAt(this.#pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return;
      this.#pos += 1;
    }
  }

  #eat(code: number): boolean {
    if (this.text.charCodeAt(this.#pos) !== code) return false;
    this.#pos += 1;
    return true;
  }

  #fail(message: string): never {
    throw new JsonSyntaxError(message, this.#pos);
  }
}

function share<T>(cache: Map<string, T>, key: string, make: () => T): T {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = make();
  if (cache.size < SHARED_MAX_ENTRIES) cache.set(key, value);
  return value;
}

/** Serializes a parsed value back to compact JSON, numbers exactly as they were written. */
export function stringifyJson(value: JsonValue): string {
  if (value instanceof JsonNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(stringifyJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${stringifyJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Converts a parsed value to plain JSON data (numbers become doubles) for code past the edge. */
export function toPlainJson(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return Number(value.text);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, { value: toPlainJson(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
