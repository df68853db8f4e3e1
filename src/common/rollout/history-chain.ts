// A paginated rollout that continues another file's prefix. codex 0.171.0 reverts a thread
// (`thread/revert`) by starting a new file, rollout-<time>-<thread>_<file id>.jsonl, whose
// session_meta names what it continues:
//   "history_base": {"thread_id": "<base file id>", "end_ordinal_exclusive": N, "end_byte_offset": B}
// the base file's lines before byte B (ordinals below N) come first, then the new file's lines
// (ordinal N on). A file's id is the thread id for a thread's first file, else the id after the
// `_` in its name; a base may continue a base of its own. The thread is the chain's newest file
// (test/fixtures/reference-answers/thread-revert.jsonl).
//
// Read synchronously: only a thread with such a history pays for it, once per cold read, in a
// worker (the stored-history worker, or the actor's at a cold resume).
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { obj, parseLine, str, num } from './rollout-json.js';
import { SESSIONS_DIR } from './rollout-path.js';

/** Where a file's history starts: the base's id and its prefix's extent. */
export interface HistoryBase {
  fileId: string;
  endOrdinalExclusive: number;
  endByteOffset: number;
}

// More bases than any real chain of reverts has: beyond it the files are taken as a loop.
const MAX_CHAIN = 1_000;

/** The history base a rollout's first line names, or null (no base, or no session_meta first). */
export function historyBaseOf(firstLine: string): HistoryBase | null {
  const record = parseLine(firstLine);
  if (record?.type !== 'session_meta') return null;
  const base = obj(record.payload.history_base);
  if (base === null) return null;
  const fileId = str(base.thread_id);
  const endOrdinalExclusive = num(base.end_ordinal_exclusive);
  const endByteOffset = num(base.end_byte_offset);
  if (fileId === null || endOrdinalExclusive === null || endByteOffset === null) throw new Error(`malformed history_base: ${JSON.stringify(base)}`);
  return { fileId: fileId.toLowerCase(), endOrdinalExclusive, endByteOffset };
}

/**
 * The rollout text of the thread whose newest file is `path` and holds `text`: the prefixes its
 * bases give, oldest first, then `text`. A text without a base is returned as it is.
 */
export function withHistoryBases(path: string, text: string): string {
  let base = historyBaseOf(firstLine(text));
  if (base === null) return text;
  const sessions = sessionsRoot(path);
  const prefixes: string[] = [];
  for (let depth = 0; base !== null; depth += 1) {
    if (depth === MAX_CHAIN) throw new Error(`history bases of ${path} do not end`);
    const basePath = findFileById(sessions, base.fileId);
    if (basePath === null) throw new Error(`history base ${base.fileId} of ${path} not found`);
    const prefix = checkedPrefix(readFileSync(basePath), base, basePath);
    prefixes.push(prefix);
    base = historyBaseOf(firstLine(prefix));
  }
  return prefixes.reverse().join('') + text;
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}

/** The base's lines before the offset, which must end a line whose ordinal is the one before the end. */
function checkedPrefix(bytes: Buffer, base: HistoryBase, path: string): string {
  if (base.endByteOffset > bytes.length || (base.endByteOffset > 0 && bytes[base.endByteOffset - 1] !== 0x0a)) {
    throw new Error(`history base offset ${base.endByteOffset} is not a line end of ${path}`);
  }
  const prefix = bytes.subarray(0, base.endByteOffset).toString('utf8');
  const last = prefix.slice(prefix.lastIndexOf('\n', prefix.length - 2) + 1, -1);
  const ordinal = base.endByteOffset === 0 ? -1 : parseLine(last)?.ordinal;
  if (ordinal !== base.endOrdinalExclusive - 1) throw new Error(`history base of ${path} ends at ordinal ${String(ordinal)}, not ${base.endOrdinalExclusive - 1}`);
  return prefix;
}

/** `<home>/sessions` above a rollout's path. */
function sessionsRoot(path: string): string {
  const marker = `${sep}${SESSIONS_DIR}${sep}`;
  const at = path.lastIndexOf(marker);
  return at === -1 ? dirname(path) : path.slice(0, at + marker.length - 1);
}

/** The rollout whose file id is `fileId`: `…-<id>.jsonl` (a first file) or `…_<id>.jsonl`. */
function findFileById(dir: string, fileId: string): string | null {
  let names: string[];
  try {
    names = readdirSync(dir).sort().reverse();
  } catch {
    return null;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name.startsWith('rollout-') && (name.endsWith(`-${fileId}.jsonl`) || name.endsWith(`_${fileId}.jsonl`))) return path;
    // Real directories only, as every walk of sessions/ (rollout-locator.ts): no link is followed.
    if (!name.includes('.') && lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) {
      const found = findFileById(path, fileId);
      if (found !== null) return found;
    }
  }
  return null;
}
