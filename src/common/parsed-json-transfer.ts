// How a parsed line crosses from the line-parser worker to the main thread without being
// parsed again. postMessage's structured clone keeps plain objects, arrays, strings, Maps and
// Sets, and keeps object identity within one message, so the value and its `duplicateKeys`
// (a Map keyed by the very objects of the value) go together in one message and arrive
// still pointing at each other. Two things do not survive the clone:
//   - a `JsonNumber` arrives as a plain `{text}` object (classes lose their prototype), so the
//     worker also sends where each one sits, as (container, key) pairs, again by identity;
//     the main thread rebuilds only those, in O(numbers), never walking the whole value;
//   - a top-level number has no container, so the value travels inside a one-element array.
// An object only `duplicateKeys` still holds (an earlier value of a duplicated key, no longer in
// the value) keeps its numbers as `{text}`: the map is only ever looked up by identity.
//
// A large string (a pasted file in a turn's text) also travels as its UTF-8 bytes, encoded in
// the worker and transferred (not copied), so that the main thread can hand the bytes on to
// the turn's pool worker instead of cloning the text a second time (bench case `huge-line`):
// `utf8Of(container, key)` gives them once, to whoever decodes that place of the value.
//
//   worker                                     main thread
//   { root: [value],             ──clone──▶    root[0] is the value
//     numbers: [[obj, 'n'], …],                obj.n = new JsonNumber(obj.n.text)
//     duplicateKeys: Map{obj → {'id'}},        the Map's keys are the value's objects
//     texts: [[obj, 'text', bytes], …] }       utf8Of(obj, 'text') is bytes (transferred)
import { ENCODE_IN_WORKER_CHARS, ownedUtf8 } from './encoded-content.js';
import { JsonNumber, type JsonObject, type JsonValue, type ParsedJson } from './json-text.js';

/** A container of the value and the key (object) or index (array) of one JsonNumber in it. */
type NumberSite = [container: JsonObject | JsonValue[], key: string | number];

/** Where a large string sits, and its UTF-8 bytes, alone in their ArrayBuffer. */
type TextSite = [container: JsonObject | JsonValue[], key: string | number, utf8: Uint8Array];

/** A ParsedJson as it is posted; opaque outside this file. */
export interface TransferredJson {
  readonly root: [JsonValue];
  readonly numbers: NumberSite[];
  readonly duplicateKeys: ParsedJson['duplicateKeys'];
  readonly texts: TextSite[];
}

/** The ArrayBuffers to transfer with `transferred` (the large strings' bytes). */
export const transferList = (transferred: TransferredJson): ArrayBuffer[] => transferred.texts.map(([, , utf8]) => utf8.buffer as ArrayBuffer);

/** Worker side: the message form of `parsed` (the value itself is shared, not copied). */
export function toTransfer(parsed: ParsedJson): TransferredJson {
  const root: [JsonValue] = [parsed.value];
  const numbers: NumberSite[] = [];
  const texts: TextSite[] = [];
  // An explicit stack: the value may be 127 containers deep, and a worker's stack is small.
  const stack: Array<JsonObject | JsonValue[]> = [root];
  const visit = (container: JsonObject | JsonValue[], key: string | number, item: JsonValue): void => {
    if (item instanceof JsonNumber) numbers.push([container, key]);
    else if (typeof item === 'string') {
      // UTF-8 carries any string the parser returns: it refuses a lone surrogate, as serde_json does.
      if (item.length >= ENCODE_IN_WORKER_CHARS) texts.push([container, key, ownedUtf8(item)]);
    } else if (item !== null && typeof item === 'object') stack.push(item);
  };
  for (let container = stack.pop(); container !== undefined; container = stack.pop()) {
    if (Array.isArray(container)) for (let i = 0; i < container.length; i += 1) visit(container, i, container[i]!);
    else for (const key of Object.keys(container)) visit(container, key, container[key]!);
  }
  return { root, numbers, duplicateKeys: parsed.duplicateKeys, texts };
}

// Main side: the bytes of the large strings of values received, by place, until taken.
const utf8ByPlace = new WeakMap<object, Map<string | number, Uint8Array>>();

/**
 * The UTF-8 bytes of the large string at `container[key]` of a value received from the worker,
 * once: the caller transfers them on. Undefined for any other place, and the second time.
 */
export function utf8Of(container: object, key: string | number): Uint8Array | undefined {
  const places = utf8ByPlace.get(container);
  const utf8 = places?.get(key);
  places?.delete(key);
  return utf8;
}

/** Main side: the ParsedJson back, as `parseJson` would have returned it on this thread. */
export function fromTransfer(transferred: TransferredJson): ParsedJson {
  // One JsonNumber per distinct text, as the parser shares them; identity is never compared.
  const shared = new Map<string, JsonNumber>();
  for (const [container, key] of transferred.numbers) {
    const slot = container as Record<string | number, JsonValue>;
    const { text } = slot[key] as unknown as { text: string };
    let number = shared.get(text);
    if (number === undefined) shared.set(text, (number = new JsonNumber(text)));
    // The key is an own data property already (even `__proto__`), so assignment only replaces it.
    slot[key] = number;
  }
  for (const [container, key, utf8] of transferred.texts) {
    let places = utf8ByPlace.get(container);
    if (places === undefined) utf8ByPlace.set(container, (places = new Map()));
    places.set(key, utf8);
  }
  return { value: transferred.root[0], duplicateKeys: transferred.duplicateKeys };
}
