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
//   worker                                     main thread
//   { root: [value],             ──clone──▶    root[0] is the value
//     numbers: [[obj, 'n'], …],                obj.n = new JsonNumber(obj.n.text)
//     duplicateKeys: Map{obj → {'id'}} }       the Map's keys are the value's objects
import { JsonNumber, type JsonObject, type JsonValue, type ParsedJson } from './json-text.js';

/** A container of the value and the key (object) or index (array) of one JsonNumber in it. */
type NumberSite = [container: JsonObject | JsonValue[], key: string | number];

/** A ParsedJson as it is posted; opaque outside this file. */
export interface TransferredJson {
  readonly root: [JsonValue];
  readonly numbers: NumberSite[];
  readonly duplicateKeys: ParsedJson['duplicateKeys'];
}

/** Worker side: the message form of `parsed` (the value itself is shared, not copied). */
export function toTransfer(parsed: ParsedJson): TransferredJson {
  const root: [JsonValue] = [parsed.value];
  const numbers: NumberSite[] = [];
  // An explicit stack: the value may be 127 containers deep, and a worker's stack is small.
  const stack: Array<JsonObject | JsonValue[]> = [root];
  const visit = (container: JsonObject | JsonValue[], key: string | number, item: JsonValue): void => {
    if (item instanceof JsonNumber) numbers.push([container, key]);
    else if (item !== null && typeof item === 'object') stack.push(item);
  };
  for (let container = stack.pop(); container !== undefined; container = stack.pop()) {
    if (Array.isArray(container)) for (let i = 0; i < container.length; i += 1) visit(container, i, container[i]!);
    else for (const key of Object.keys(container)) visit(container, key, container[key]!);
  }
  return { root, numbers, duplicateKeys: parsed.duplicateKeys };
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
  return { value: transferred.root[0], duplicateKeys: transferred.duplicateKeys };
}
