// Which parsed lines are requests. The reference decodes a line into the untagged
// `JSONRPCMessage` (request, notification, response, error) by structure alone, and only a
// request can ever be answered; everything else, including a "request" whose id it cannot
// decode, is dropped without a reply. Observed details (codex 0.171.0, see the corpus):
//   - an id is a string or an integer that fits i64; `1.0`, `1e3`, `2^63` are not ids, `-0` is 0;
//   - a duplicated `id`, `method`, `params` or `trace` key fails the request struct;
//   - `params: null` is the same as no params; a bad `trace` fails the request;
//   - like any serde struct, a request may also arrive as an array `[id, method, params?, trace?]`.
import { JsonNumber, type JsonObject, type JsonValue, type ParsedJson } from '../../common/json-text.js';

/** A request id as the reference's `RequestId`: a string or an i64 (bigint beyond 2^53). */
export type RequestId = string | number | bigint;

/** A request the router must answer. `params` is undefined when absent or null. */
export interface IncomingRequest {
  id: RequestId;
  method: string;
  params: JsonValue | undefined;
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const REQUEST_FIELDS = ['id', 'method', 'params', 'trace'] as const;
const TRACE_FIELDS = ['traceparent', 'tracestate'] as const;

// A derived struct rejects a duplicate of a field it declares; duplicates of others are ignored.
const hasDuplicate = (parsed: ParsedJson, object: JsonObject, fields: readonly string[]): boolean =>
  fields.some((key) => parsed.duplicateKeys.get(object)?.has(key) === true);

/** The request a parsed line carries, or null when the reference would not answer it. */
export function requestOf(parsed: ParsedJson): IncomingRequest | null {
  const { value } = parsed;
  let fields: Array<JsonValue | undefined>;
  if (Array.isArray(value)) {
    if (value.length < 2 || value.length > 4) return null;
    fields = value;
  } else {
    if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return null;
    if (hasDuplicate(parsed, value, REQUEST_FIELDS)) return null;
    fields = REQUEST_FIELDS.map((key) => (Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined));
  }
  const [rawId, method, params, trace] = fields;
  const id = requestId(rawId);
  if (id === null || typeof method !== 'string' || !isTrace(trace, parsed)) return null;
  return { id, method, params: params === null ? undefined : params };
}

/** An answer to a request the server sent: `{id, result}` or `{id, error}`, without a method. */
export interface IncomingResponse {
  id: RequestId;
  result?: JsonValue;
  error?: JsonValue;
}

/** The response a parsed line carries (to a server request), or null when it is none. */
export function responseOf(parsed: ParsedJson): IncomingResponse | null {
  const { value } = parsed;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumber) return null;
  const own = (key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);
  if (own('method') || !own('id') || own('result') === own('error')) return null;
  const id = requestId(value.id);
  if (id === null) return null;
  return own('result') ? { id, result: value.result } : { id, error: value.error };
}

/** Decodes a `RequestId` the way the line-level parse does: integers only as written. */
export function requestId(value: JsonValue | undefined): RequestId | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return value; // parseJson makes plain numbers of short integers only
  if (!(value instanceof JsonNumber) || /[.eE]/.test(value.text)) return null;
  const n = BigInt(value.text);
  if (n < I64_MIN || n > I64_MAX) return null;
  return Number.isSafeInteger(Number(n)) ? Number(n) : n;
}

/** `Option<W3cTraceContext>`: absent, null, or an object whose two fields are strings or null. */
function isTrace(value: JsonValue | undefined, parsed: ParsedJson): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length <= 2 && value.every(isOptionalString);
  if (typeof value !== 'object' || value instanceof JsonNumber || hasDuplicate(parsed, value, TRACE_FIELDS)) return false;
  const own = (key: string) => (Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined);
  return isOptionalString(own('traceparent')) && isOptionalString(own('tracestate'));
}

const isOptionalString = (value: JsonValue | undefined): boolean => value === undefined || value === null || typeof value === 'string';

/** The exact JSON text of an id, for echoing it back unchanged. */
export function requestIdJson(id: RequestId): string {
  return typeof id === 'bigint' ? id.toString() : JSON.stringify(id);
}
