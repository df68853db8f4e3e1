// Reads the heads of the rollouts under <home>/sessions for `thread/list`: the session_meta line
// and the lines up to the first user message, parsed without replaying any turn. This runs in
// the stored-history worker only (the import-direction test keeps it off the main thread), so
// it reads synchronously: one file open at a time, no libuv thread pool shared with the
// host's other I/O, and far less CPU a file than fs/promises (bench case `thread-list`).
//
// No symbolic link is ever followed (rollout-directories.ts walks without them, and a file
// replaced by a link since is taken for gone), so nothing outside <home>/sessions is ever
// opened or returned, whatever a thread id or a planted link says.
import { closeSync, constants, lstatSync, openSync, readSync, type Stats } from 'node:fs';
import { basename } from 'node:path';
import { HEAD_CHUNK_BYTES, HEAD_READ_LIMIT, parseRolloutFileName } from '../common/rollout/rollout-path.js';
import { withHistoryBase } from '../common/rollout/history-base.js';
import { historyModeOf, parseRollout, type ParsedRollout, type RolloutMeta } from '../common/rollout/rollout-reader.js';
import type { RolloutFile } from './rollout-directories.js';
import type { RolloutFileState, RolloutHead, RolloutHeads } from './rollout-heads.js';
import type { RolloutSummary } from '../common/stored-history-messages.js';
import { threadIdOf } from '../common/thread-id.js';

/** A listed rollout: its head, and its mtime, or null when the listing did not stat the file. */
export interface ListedRollout {
  head: RolloutHead;
  updatedAtMs: number | null;
  /** The head was read from the file by this listing, not taken from the kept heads. */
  readNow: boolean;
}

/**
 * How a listing uses the kept heads: 'trustWhole' does not stat a file whose head was kept
 * whole (it cannot change by appends, and the walk sees deletions; its `updatedAtMs` is null,
 * for the caller to read the few it shows with `freshHead`); 'validate' stats every file and
 * reads those that are new, replaced, shortened or not yet whole and grown; 'readAgain' reads
 * every head it is asked for (what a search of previews needs: a head rewritten in place shows
 * in no stat).
 */
export type HeadUse = 'trustWhole' | 'validate' | 'readAgain';

/**
 * The head of `file` as `use` says to find it (`stat`: the listing's own stat of it, if it
 * took one), and keeps what it read in `heads`; null when the file has no readable
 * session_meta of its own thread, or went.
 */
export function listedHead(file: RolloutFile, stat: Stats | null, heads: RolloutHeads, use: HeadUse): ListedRollout | null {
  const whole = use === 'trustWhole' ? heads.whole(file.path) : undefined;
  return whole === undefined ? summarise(file.path, stat, heads, use === 'readAgain') : { head: whole, updatedAtMs: null, readNow: false };
}

/** A listed rollout read again: as listed, changed (its head now), or gone / unreadable. */
export type FreshHead =
  | { kind: 'same' | 'changed'; head: RolloutHead; updatedAtMs: number }
  | { kind: 'gone' }
  | { kind: 'unreadable' };

/**
 * A listed rollout read again, for a page to show: its head as its file has it now, with its
 * mtime. Appends never change a head, but a writer that cuts a failed
 * write back and writes another does (in place: no stat tells), and so does a file replaced;
 * `heads` then keeps the new one. A file that cannot be read now (EMFILE, EIO) is forgotten by
 * `heads`, not taken for a change.
 */
export function freshHead(head: RolloutHead, heads: RolloutHeads): FreshHead {
  let file;
  try {
    file = regularFile(head.path);
  } catch {
    return unreadable(head, heads);
  }
  if (file === undefined) return { kind: 'gone' };
  let now;
  try {
    now = readAndKeep(head.path, file, heads);
  } catch {
    return unreadable(head, heads);
  }
  if (now === null) return { kind: 'gone' }; // no longer a rollout of this thread
  return { kind: sameHead(now, head) ? 'same' : 'changed', head: now, updatedAtMs: Math.floor(file.mtimeMs) };
}

function unreadable(head: RolloutHead, heads: RolloutHeads): FreshHead {
  heads.forget(head.path);
  return { kind: 'unreadable' };
}

function sameHead(a: RolloutHead, b: RolloutHead): boolean {
  // A sub-agent's source is an object, read anew each time.
  return (Object.keys(a) as Array<keyof RolloutHead>).every((key) => a[key] === b[key] || (key === 'source' && JSON.stringify(a[key]) === JSON.stringify(b[key])));
}

/** A stat of `path` if it is a regular file (not a link to one), else undefined. */
export function regularFile(path: string): Stats | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat?.isFile() === true ? stat : undefined;
}

function summarise(path: string, stat: Stats | null, heads: RolloutHeads, readAgain: boolean): ListedRollout | null {
  try {
    const file = stat ?? regularFile(path);
    if (file === undefined) return null; // deleted (or made a link) since the walk
    const kept = readAgain ? undefined : heads.get(path, fileState(file));
    const head = kept === undefined ? readAndKeep(path, file, heads) : kept;
    return head === null ? null : { head, updatedAtMs: Math.floor(file.mtimeMs), readNow: kept === undefined };
  } catch {
    return null; // vanished or unreadable between the walk and the read
  }
}

const fileState = (file: Stats): RolloutFileState => ({ ino: file.ino, bornMs: file.birthtimeMs, size: file.size });

/** Reads the head of `path`, which `file` is a stat of, and keeps it in `heads`. */
function readAndKeep(path: string, file: Stats, heads: RolloutHeads): RolloutHead | null {
  const read = readHead(path);
  const head = headOf(path, read.parsed);
  heads.set(path, fileState(file), head, read.whole);
  return head;
}

function headOf(path: string, head: ParsedRollout): RolloutHead | null {
  const fromName = parseRolloutFileName(basename(path));
  // A file whose meta names another thread is a copy or a corruption; the reference skips it.
  const named = head.threadId === null ? undefined : threadIdOf(head.threadId);
  if (head.meta === null || named !== fromName?.threadId) return null;
  // Nor does it list a rollout whose source it cannot read.
  if (head.meta.source === null) return null;
  return rolloutHead(head.threadId as string, path, head, head.meta);
}

/** What a listing shows of a parsed rollout (or its head), but its update time. */
export function rolloutHead<Path extends string | null>(threadId: string, path: Path, parsed: ParsedRollout, meta: RolloutMeta): Omit<RolloutSummary, 'updatedAtMs'> & { path: Path } {
  return {
    threadId,
    path,
    createdAtMs: meta.createdAtMs,
    preview: parsed.preview,
    modelProvider: meta.modelProvider,
    cwd: meta.cwd,
    cliVersion: meta.cliVersion,
    source: meta.source?.value ?? 'unknown',
    sourceKind: meta.source?.kind ?? 'unknown',
    originator: meta.originator,
    model: meta.model,
    historyMode: historyModeOf(meta),
  };
}

// One buffer for every head read (the worker reads one file at a time), grown as a long head
// needs (never past HEAD_READ_LIMIT) and let go after it, so one pasted first message does not
// keep megabytes for the worker's life.
let headBuffer: Buffer = Buffer.allocUnsafe(HEAD_CHUNK_BYTES);

// The complete lines up to and including the first user message with more than whitespace (or
// the whole file if short), parsed: the reference's preview is that message, trimmed (a thread
// whose first message is " " takes its preview from its second). `whole` when that message was
// found, so the head is final.
function readHead(path: string): { parsed: ParsedRollout; whole: boolean } {
  // O_NOFOLLOW: a file made a link between its stat and this open is not followed either.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    let read = 0;
    // Where the search for the next user message goes on from: the end of the last one found
    // (only whitespace), or the start of the line that held the end of what was read before.
    let searchFrom = 0;
    let firstLineSeen = false;
    while (read < HEAD_READ_LIMIT) {
      if (read === headBuffer.length) headBuffer = grown(headBuffer, Math.min(headBuffer.length * 2, HEAD_READ_LIMIT));
      const bytesRead = readSync(fd, headBuffer, read, Math.min(HEAD_CHUNK_BYTES, headBuffer.length - read), read);
      if (bytesRead === 0) break;
      searchFrom = Math.max(searchFrom, read);
      read += bytesRead;
      if (!firstLineSeen && headBuffer.subarray(0, read).includes(0x0a)) {
        firstLineSeen = true;
        if (lineHolds(headBuffer, 0, HISTORY_BASE)) return forkHead(path, headBuffer, read);
      }
      for (let end = firstUserMessageEnd(headBuffer, searchFrom, read); end !== -1; end = firstUserMessageEnd(headBuffer, searchFrom, read)) {
        const parsed = parseRollout(headText(headBuffer, end));
        if (parsed.preview !== '') return { parsed, whole: true };
        searchFrom = end;
      }
    }
    return { parsed: parseRollout(headText(headBuffer, read)), whole: false };
  } finally {
    closeSync(fd);
    if (headBuffer.length > HEAD_CHUNK_BYTES) headBuffer = Buffer.allocUnsafe(HEAD_CHUNK_BYTES);
  }
}

const HISTORY_BASE = Buffer.from('"history_base"');

// A paginated fork's head is its session_meta and its own lines: its preview is its source's
// first user message, read from the source's head (history-base.ts); its own head is final
// once that is found.
function forkHead(path: string, bytes: Buffer, length: number): { parsed: ParsedRollout; whole: boolean } {
  const parsed = parseRollout(withHistoryBase(path, headText(bytes, length), HEAD_READ_LIMIT));
  return { parsed, whole: parsed.preview !== '' };
}

// The session_meta's base instructions: ~20 KB of text in the reference's rollouts, the larger
// part of every head, and nothing a listing shows (the model comes from their `provenance`,
// which stays). Leaving that string out of the decoding and parsing spares most of a head's
// cost (bench case `thread-list`).
const BASE_TEXT_KEYS = [Buffer.from('"base_instructions":{"text":"'), Buffer.from('"base_instructions":"')];
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * `bytes[0, length)` as text, with the first line's base-instructions string emptied. Byte search
 * is exact here: in UTF-8 a quote or a backslash byte is always that character, and in JSON a
 * key's closing quote is never escaped, so `"base_instructions":` only matches the key itself.
 * The one difference from parsing the whole line: a line whose instructions alone are not valid
 * JSON (a raw control character, a bad escape), which no writer produces, is listed rather than
 * skipped; reading that thread still refuses it.
 */
function headText(bytes: Buffer, length: number): string {
  const read = bytes.subarray(0, length);
  const firstLineEnd = read.indexOf(0x0a);
  const lineEnd = firstLineEnd === -1 ? length : firstLineEnd;
  const firstLine = read.subarray(0, lineEnd);
  for (const key of BASE_TEXT_KEYS) {
    const at = firstLine.indexOf(key);
    if (at === -1) continue;
    const start = at + key.length;
    const close = closingQuote(bytes, start, lineEnd);
    if (close === -1) break;
    return bytes.toString('utf8', 0, start) + bytes.toString('utf8', close, length);
  }
  return bytes.toString('utf8', 0, length);
}

/** Where the JSON string whose contents start at `from` ends (its closing quote), or -1 before `end`. */
function closingQuote(bytes: Buffer, from: number, end: number): number {
  for (let quote = bytes.indexOf(QUOTE, from); quote !== -1 && quote < end; quote = bytes.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && bytes[quote - backslashes - 1] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

function grown(buffer: Buffer, size: number): Buffer {
  const bigger = Buffer.allocUnsafe(size);
  buffer.copy(bigger);
  return bigger;
}

const USER_MESSAGE_EVENT = Buffer.from('"type":"user_message"');
const ITEM_COMPLETED = Buffer.from('"type":"item_completed"');
const USER_MESSAGE_ITEM = Buffer.from('"type":"UserMessage"');

/**
 * The end (past its newline) of the first complete line in `bytes[0, length)` that holds a
 * user message, legacy (a `"type":"user_message"` event) or paginated (an item_completed
 * holding a `"type":"UserMessage"` item), or -1. Only lines ending at or after `from` are new; the line that
 * was incomplete at `from` is searched again as a whole. Byte search: both markers are ASCII,
 * and a line's end is its newline byte, which UTF-8 never uses inside a character.
 */
function firstUserMessageEnd(bytes: Buffer, from: number, length: number): number {
  const lineStart = from === 0 ? 0 : bytes.lastIndexOf(0x0a, from - 1) + 1;
  // Complete lines only. Each marker is searched for once over them all (the session_meta line
  // alone is ~22 KB), not line by line.
  const lastNewline = length === 0 ? -1 : bytes.lastIndexOf(0x0a, length - 1);
  if (lastNewline < lineStart) return -1;
  const complete = bytes.subarray(0, lastNewline + 1);
  const event = complete.indexOf(USER_MESSAGE_EVENT, lineStart);
  let item = complete.indexOf(USER_MESSAGE_ITEM, lineStart);
  while (item !== -1 && !lineHolds(complete, item, ITEM_COMPLETED)) item = complete.indexOf(USER_MESSAGE_ITEM, complete.indexOf(0x0a, item) + 1);
  const first = event === -1 ? item : item === -1 ? event : Math.min(event, item);
  return first === -1 ? -1 : complete.indexOf(0x0a, first) + 1;
}

/** Whether the line around `at` holds `needle`. */
function lineHolds(bytes: Buffer, at: number, needle: Buffer): boolean {
  return bytes.subarray(bytes.lastIndexOf(0x0a, at) + 1, bytes.indexOf(0x0a, at)).includes(needle);
}
