// A paginated fork's rollout does not copy its source's lines: its session_meta names them
// (codex 0.171.0, `history_base`): the file it continues and how much of that file belongs to
// the fork, in ordinals and bytes. codex reverts a thread the same way (`thread/revert`): it
// starts a new file, rollout-<time>-<thread>_<file id>.jsonl, whose base is a prefix of the
// thread's previous file. A base names a file id: a thread's first file's is the thread id,
// a later file's the id after its `_`; bases may chain. Every reader of a fork's history reads those
// bytes of the source first. Bytes of a file that are already there never change (rollouts
// are only appended to), so the prefix is read without the source's writer lock, whoever is
// writing the source meanwhile.
//
// The expansion keeps one text: the fork's session_meta line, then the base's lines (their own
// session_meta after the fork's, which rollout-reader.ts ignores: the first one wins), then
// the rest of the fork. Ordinals stay unique and increasing: a fork's own lines begin at the
// base's end ordinal.
//
// Reads here are synchronous: they run in the stored-history worker, or in an actor's load
// (rare: a fork's cold resume), each under its caller's deadline.

import { closeSync, constants, lstatSync, openSync, readdirSync, readSync, type Dirent } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ARCHIVED_SESSIONS_DIR, newestNameFirst, parseRevertedRolloutFileName, parseRolloutFileName, SESSIONS_DIR } from './rollout-path.js';
import { threadIdOf } from '../thread-id.js';

/** Where a fork's history begins: a prefix of its source's own rollout. */
export interface HistoryBase {
  threadId: string;
  endOrdinalExclusive: number;
  endByteOffset: number;
}

/** Links followed from a fork to its source's source at most (a loop of bad files ends here). */
const MAX_BASE_DEPTH = 64;

/** The `history_base` of a rollout's first line, or null when it is no fork by reference. */
export function historyBaseOf(firstLine: string): HistoryBase | null {
  if (!firstLine.includes('"history_base"')) return null;
  let record: { type?: unknown; payload?: { history_base?: unknown } };
  try {
    record = JSON.parse(firstLine) as typeof record;
  } catch {
    return null;
  }
  const base = record.type === 'session_meta' ? (record.payload?.history_base as Record<string, unknown> | null | undefined) : null;
  if (base === null || typeof base !== 'object') return null;
  const { thread_id: threadId, end_ordinal_exclusive: endOrdinalExclusive, end_byte_offset: endByteOffset } = base;
  if (typeof threadId !== 'string' || !Number.isSafeInteger(endOrdinalExclusive) || !Number.isSafeInteger(endByteOffset)) return null;
  if ((endByteOffset as number) < 0 || (endOrdinalExclusive as number) < 0) return null;
  return { threadId: threadIdOf(threadId), endOrdinalExclusive: endOrdinalExclusive as number, endByteOffset: endByteOffset as number };
}

/**
 * `text` (the rollout at `path`, or its head) with its history base put in, recursively.
 * `baseLimit` caps the bytes read of each base (a listing needs only a head). A base that
 * cannot be found or read leaves the fork with only its own lines, as a damaged file would.
 */
export function withHistoryBase(path: string, text: string, baseLimit = Number.POSITIVE_INFINITY): string {
  return expand(path, text, baseLimit, new Set());
}

function expand(path: string, text: string, baseLimit: number, seen: Set<string>): string {
  const firstEnd = text.indexOf('\n');
  const base = historyBaseOf(firstEnd === -1 ? text : text.slice(0, firstEnd));
  if (base === null || seen.has(base.threadId) || seen.size >= MAX_BASE_DEPTH) return text;
  seen.add(base.threadId);
  const basePath = locateRollout(path, base.threadId);
  if (basePath === null) return text;
  const prefix = readPrefix(basePath, Math.min(base.endByteOffset, baseLimit));
  if (prefix === null) return text;
  const baseText = expand(basePath, prefix, baseLimit, seen);
  const head = firstEnd === -1 ? `${text}\n` : text.slice(0, firstEnd + 1);
  const rest = firstEnd === -1 ? '' : text.slice(firstEnd + 1);
  return head + baseText + (baseText === '' || baseText.endsWith('\n') ? '' : '\n') + rest;
}

/** The complete lines among the first `bytes` bytes of `path`, or null when it cannot be read. */
export function readPrefix(path: string, bytes: number): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const chunks: Buffer[] = [];
    let read = 0;
    while (read < bytes) {
      const chunk = Buffer.allocUnsafe(Math.min(bytes - read, 1 << 20));
      const got = readSync(fd, chunk, 0, chunk.length, read);
      if (got === 0) break;
      chunks.push(got === chunk.length ? chunk : chunk.subarray(0, got));
      read += got;
    }
    const all = Buffer.concat(chunks);
    // A line cut by the limit (or still being written) is no line of the base.
    return all.subarray(0, all.lastIndexOf(0x0a) + 1).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The rollout of `threadId` in the home `near` (a rollout path) belongs to: its own directory
 * first (a fork is most often made the day of its source), then every date directory, newest
 * first, then the archive. Symbolic links are never followed.
 */
export function locateRollout(near: string, threadId: string): string | null {
  const wanted = threadIdOf(threadId);
  const home = homeOf(near);
  const sameDirectory = findIn(dirname(near), wanted, false);
  if (sameDirectory !== null || home === null) return sameDirectory;
  return findIn(join(home, SESSIONS_DIR), wanted, true) ?? findIn(join(home, ARCHIVED_SESSIONS_DIR), wanted, false);
}

// <home>/sessions/YYYY/MM/DD/<file> or <home>/archived_sessions/<file>.
function homeOf(path: string): string | null {
  const parent = dirname(path);
  if (basename(parent) === ARCHIVED_SESSIONS_DIR) return dirname(parent);
  const sessions = dirname(dirname(dirname(parent)));
  return basename(sessions) === SESSIONS_DIR ? dirname(sessions) : null;
}

function findIn(dir: string, wanted: string, deep: boolean): string | null {
  let entries: Dirent[];
  try {
    if (!lstatSync(dir).isDirectory()) return null;
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  entries.sort(newestNameFirst);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile() && fileIdOf(entry.name) === wanted) return path;
    if (deep && entry.isDirectory()) {
      const found = findIn(path, wanted, true);
      if (found !== null) return found;
    }
  }
  return null;
}

/** The id a history base names a rollout file by: the id after `_` in a file a revert started, else its thread's. */
function fileIdOf(name: string): string | null {
  return parseRevertedRolloutFileName(name)?.fileId ?? parseRolloutFileName(name)?.threadId ?? null;
}

/** The file id of the rollout at `path`, as a history base names it; null for a name no rollout has. */
export const rolloutFileId = (path: string): string | null => fileIdOf(basename(path));
