// One parsed rollout line, and the lenient accessors the reader and the turn history builder
// share. Rollouts come from several writers and releases, so a field of the wrong type reads
// as absent instead of failing the whole file.

/** A JSON object as parsed, before any field is trusted. */
export type Json = Record<string, unknown>;

/**
 * One JSONL line of a rollout: its envelope `timestamp` (ms, if parseable), `ordinal` (paginated
 * history only: the line's position, contiguous from 0), `type` and `payload`.
 */
export interface RolloutRecord {
  ts: number | null;
  ordinal: number | null;
  type: string;
  payload: Json;
}

// A `\uD800`–`\uDFFF` escape: the only way a rollout line can hold a surrogate, paired or lone.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Strings with every lone surrogate replaced by U+FFFD. Another writer may have escaped one into
 * a rollout; left in, it would read one way in this thread and another after crossing threads
 * (msgpackr replaces them), so a resumed history and its reads would disagree.
 */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.toWellFormed() : value;
}

/** Parses one line; `null` when it is not JSON or has no string `type`. */
export function parseLine(source: string): RolloutRecord | null {
  let value: unknown;
  try {
    // The reviver only where an escape could hold a surrogate: a reviver slows the whole parse.
    value = SURROGATE_ESCAPE.test(source) ? JSON.parse(source, wellFormed) : JSON.parse(source);
  } catch {
    return null;
  }
  const record = obj(value);
  if (record === null || typeof record.type !== 'string') return null;
  const ordinal = record.ordinal;
  return {
    ts: parseTs(record.timestamp),
    ordinal: typeof ordinal === 'number' && Number.isSafeInteger(ordinal) && ordinal >= 0 ? ordinal : null,
    type: record.type,
    payload: obj(record.payload) ?? {},
  };
}

/** An ISO timestamp as epoch ms. */
export function parseTs(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}
export const obj = (v: unknown): Json | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
