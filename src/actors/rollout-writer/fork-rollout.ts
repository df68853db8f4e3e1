// The first lines of a fork's rollout, as codex 0.171.0 writes them for `thread/fork`, whole or
// up to and including `lastTurnId` (history/files/fork-file.ts writes them to the new file):
//
//   paginated: one session_meta naming the source (`forked_from_id`) and its base (the source's
//              own lines before the cut, history-base.ts); the fork's ordinals go on from there.
//   legacy:    the fork's session_meta, then the source's own lines before the cut, copied with
//              the time of the fork (their session_meta too, which readers skip: the first wins).
//
// The cut is where the turn after `lastTurnId` starts (its task_started), or the end of what the
// source has written. Only complete lines of the source are read, and never under its writer
// lock: whoever writes the source, the bytes before its last newline no longer change.
//
// On the PostgreSQL store (`storedForkLines`) the source is its rows, read as one snapshot of
// whole lines while any host may be appending to it, and the fork's rows hold its history
// itself, as the files store's reader sees a fork's file with its base put in: the session_meta
// (at the same ordinal, naming no base: the store has no files to name), then the lines kept.
import { readPrefix, historyBaseOf, locateRollout, rolloutFileId, withHistoryBase, type HistoryBase } from '../../common/rollout/history-base.js';
import { pathOf } from '../../common/history-location.js';
import { parseLine } from '../../common/rollout/rollout-json.js';
import { historyModeOf, parseRollout, type HistoryMode } from '../../common/rollout/rollout-reader.js';
import type { ForkRequest } from '../../common/actor-messages.js';
import { forkRefused } from '../../common/errors.js';
import { stampOrdinal } from './paginated-format.js';
import { sessionMeta, type SessionMetaInput } from './rollout-lines.js';

/**
 * An ephemeral fork's history, never written: its session_meta, then the lines it keeps. The
 * reference keeps a paginated one only when the fork answers without its turns.
 */
export function ephemeralForkText(
  request: ForkRequest,
  meta: SessionMetaInput,
  nowMs: number,
  answersWithTurns: boolean,
  source: ForkSource | null = fileForkSource(request),
): string {
  const start = forkStart(request, new Date(nowMs).toISOString(), source);
  if (start.historyMode === 'paginated' && answersWithTurns) throw forkRefused('ephemeral paginated thread/fork requires `excludeTurns: true`');
  const first = sessionMeta({ ...meta, ...(request.sourceCwd ? { cwd: start.cwd } : {}), fork: { forkedFromId: request.sourceThreadId, base: null } }, nowMs, start.historyMode);
  return [first, ...start.kept].join('\n');
}

/**
 * A fork's first lines in the PostgreSQL store, from its source's rows (`sourceText`, null
 * when the store holds none): its session_meta, then the lines it keeps.
 */
export function storedForkLines(request: ForkRequest, sourceText: string | null, meta: SessionMetaInput, nowMs: number): string[] {
  const start = forkStart(request, new Date(nowMs).toISOString(), storeForkSource(sourceText));
  const first = sessionMeta({ ...meta, ...(request.sourceCwd ? { cwd: start.cwd } : {}), fork: { forkedFromId: request.sourceThreadId, base: null } }, nowMs, start.historyMode);
  return start.historyMode === 'legacy' ? [first, ...start.copied] : [stampOrdinal(first, start.firstOrdinal!), ...start.kept];
}

/** The source as read: its own text, and its history (a file's with its base put in); `path` null for the store's rows. */
export interface ForkSource {
  own: string;
  expanded: string;
  path: string | null;
}

/** The source's file as a fork reads it; null when it cannot be read (or the source is not a file). */
export function fileForkSource(request: ForkRequest): ForkSource | null {
  const path = pathOf(request.source);
  const own = path === null ? null : readPrefix(path, Number.POSITIVE_INFINITY);
  return path === null || own === null ? null : { own, expanded: withHistoryBase(path, own), path };
}

/** What a fork's rollout starts with, but its own session_meta (built by the caller from `base`). */
export interface ForkStart {
  historyMode: HistoryMode;
  /** Paginated: the ordinal of the fork's session_meta (where the history it keeps ends); legacy: null. */
  firstOrdinal: number | null;
  /** Paginated: where the history lives; legacy: null (the lines are copied). */
  base: HistoryBase | null;
  /** Legacy: the source's lines to copy after the session_meta. */
  copied: string[];
  /** Every line of the history the fork keeps, as read (a paginated source's base put in). */
  kept: string[];
  /** The working directory the source last ran in (its session_meta's). */
  cwd: string;
}

const TURN_STARTS = new Set(['task_started', 'turn_started']);
const LEADING_TIMESTAMP = /^\{"timestamp":"[^"]*"/;

/** Decides the fork's first lines from its source (null: none to read); refuses as the reference does. */
export function forkStart(request: ForkRequest, nowIso: string, source: ForkSource | null): ForkStart {
  if (source === null) throw forkRefused(`no rollout found for thread id ${request.sourceThreadId}`);
  const { own, expanded, path } = source;
  const parsed = parseRollout(expanded);
  if (parsed.meta === null) throw forkRefused(`no rollout found for thread id ${request.sourceThreadId}`);
  const historyMode = historyModeOf(parsed.meta);
  const { lastTurnId, beforeTurnId } = request;
  const cwd = parsed.meta.cwd;
  if (lastTurnId !== null && !parsed.turns.some((turn) => turn.id === lastTurnId)) {
    throw forkRefused(historyMode === 'paginated' ? `turn not found: ${lastTurnId}` : `lastTurnId '${lastTurnId}' was not found in the source thread`);
  }
  if (beforeTurnId !== null && !parsed.turns.some((turn) => turn.id === beforeTurnId)) throw forkRefused(`turn not found: ${beforeTurnId}`);
  const lines = splitLines(historyMode === 'paginated' ? expanded : own);
  const cut = beforeTurnId !== null ? turnStartIndex(lines, beforeTurnId, false) : lastTurnId !== null ? turnStartIndex(lines, lastTurnId, true) : lines.length;
  const kept = lines.slice(0, cut);
  if (historyMode === 'legacy') {
    const copied = kept.map((line) => line.replace(LEADING_TIMESTAMP, `{"timestamp":"${nowIso}"`));
    return { historyMode, firstOrdinal: null, base: null, copied, kept, cwd };
  }
  if (cut < lines.length) {
    const ordinal = parseLine(lines[cut] as string)?.ordinal ?? null;
    if (ordinal === null) throw new Error(`the source's line where the fork ends has no ordinal`);
    return { historyMode, firstOrdinal: ordinal, base: path === null ? null : baseAt(path, own, ordinal), copied: [], kept, cwd };
  }
  const firstOrdinal = nextOrdinal(own);
  // The source's newest file (a reverted source's is not its first): bases name files.
  const base = path === null ? null : { threadId: rolloutFileId(path) ?? request.sourceThreadId, endOrdinalExclusive: firstOrdinal, endByteOffset: Buffer.byteLength(own) };
  return { historyMode, firstOrdinal, base, copied: [], kept, cwd };
}

export function splitLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

// The index of the line that starts `turnId` (`after`: the first turn start after it), or the end.
export function turnStartIndex(lines: string[], turnId: string, after: boolean): number {
  let inTarget = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    if (!line.includes('"type":"event_msg"')) continue;
    const record = parseLine(line);
    if (record === null || !TURN_STARTS.has(record.payload.type as string)) continue;
    const started = record.payload.turn_id;
    if (started === turnId && !after) return i;
    if (started === turnId) inTarget = true;
    else if (inTarget) return i;
  }
  return lines.length;
}

// The file and byte offset where the line of ordinal `ordinal` starts, following the source's
// own base when the cut falls in it (a fork of a fork, cut before the fork's own turns). A base
// names the file by its id (history-base.ts), read from `path`'s name.
export function baseAt(path: string, own: string, ordinal: number): HistoryBase {
  const fileId = rolloutFileId(path);
  if (fileId === null) throw new Error(`${path} is not named as a rollout`);
  const firstEnd = own.indexOf('\n');
  const inherited = historyBaseOf(firstEnd === -1 ? own : own.slice(0, firstEnd));
  if (inherited !== null && ordinal < inherited.endOrdinalExclusive) {
    const basePath = locateRollout(path, inherited.threadId);
    const baseOwn = basePath === null ? null : readPrefix(basePath, inherited.endByteOffset);
    if (basePath === null || baseOwn === null) throw new Error(`the base of ${path} cannot be read`);
    return baseAt(basePath, baseOwn, ordinal);
  }
  let offset = 0;
  for (const line of own.split('\n')) {
    if (parseLine(line)?.ordinal === ordinal) return { threadId: fileId, endOrdinalExclusive: ordinal, endByteOffset: offset };
    offset += Buffer.byteLength(line) + 1;
  }
  throw new Error(`${path} has no line of ordinal ${ordinal}`);
}

// After the highest ordinal of the source's own lines (its session_meta's, when it has no other).
function nextOrdinal(own: string): number {
  let highest = -1;
  for (const line of splitLines(own)) highest = Math.max(highest, parseLine(line)?.ordinal ?? -1);
  return highest + 1;
}

/** A source read from the PostgreSQL store (its rows are its whole history: no base to put in); null when it holds none. */
export const storeForkSource = (text: string | null): ForkSource | null => (text === null ? null : { own: text, expanded: text, path: null });
