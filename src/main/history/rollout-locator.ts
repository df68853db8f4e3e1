// Finds rollouts under <home>/sessions by walking it: by file name for one thread (the
// reference's fallback walk, `find_thread_path_by_id_str_in_subdir` in codex-rs/rollout/src/
// list.rs), and by reading just the head of each file for `thread/list`.
//
// The walk never follows symbolic links, so nothing outside <home>/sessions is ever opened or
// returned, whatever a thread id or a planted link says.

import type { Dirent, Stats } from 'node:fs';
import { lstat, open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parseRolloutFileName, SESSIONS_DIR } from '../../common/history/rollout-path.js';
import { parseLine } from '../../common/history/rollout-json.js';
import { historyModeOf, parseRollout, type HistoryMode } from '../../common/history/rollout-reader.js';
import { mapLimited } from '../map-limited.js';
import type { RolloutFileState, RolloutHead, RolloutHeads } from './rollout-heads.js';

/** What `thread/list` needs about one rollout, read without replaying its turns. */
export interface RolloutSummary {
  threadId: string;
  path: string;
  createdAtMs: number;
  /** The file's mtime: the last append. */
  updatedAtMs: number;
  preview: string;
  modelProvider: string;
  cwd: string;
  cliVersion: string;
  source: string;
  originator: string;
  model: string | null;
  historyMode: HistoryMode;
}

// Reads in flight at once while listing: enough to hide disk latency, few enough not to
// exhaust file descriptors beside the sockets and rollouts this process already holds.
const LIST_READ_CONCURRENCY = 16;
// The head is read in chunks until the first user message. The reference's session_meta alone
// is ~22 KB (it embeds the base instructions); past HEAD_READ_LIMIT we give up on a preview.
const HEAD_CHUNK_BYTES = 64 * 1024;
const HEAD_READ_LIMIT = 4 * 1024 * 1024;

/** The rollout file of `threadId`, or null if there is none under <home>/sessions. */
export async function findRolloutPath(home: string, threadId: string): Promise<string | null> {
  const wanted = threadId.toLowerCase();
  for await (const path of walkRollouts(join(home, SESSIONS_DIR))) {
    if (parseRolloutFileName(basename(path))?.threadId === wanted) return path;
  }
  return null;
}

/** Every rollout file under <home>/sessions, newest date directory first. */
export function walkRolloutPaths(home: string): AsyncGenerator<string> {
  return walkRollouts(join(home, SESSIONS_DIR));
}

/** A listed rollout: its head, and its mtime, or null when the listing did not stat the file. */
export interface ListedRollout {
  head: RolloutHead;
  updatedAtMs: number | null;
}

/**
 * How a listing uses the kept heads: 'trustWhole' does not stat a file whose head was kept
 * whole (it cannot change by appends, and the walk sees deletions; its `updatedAtMs` is null,
 * for the caller to read the few it shows with `freshHeads`); 'validate' stats every file and
 * reads those that are new, replaced, shortened or not yet whole and grown; 'readAgain' reads
 * every head (what a search of previews needs: a head rewritten in place shows in no stat).
 */
export type HeadUse = 'trustWhole' | 'validate' | 'readAgain';

/** Every rollout with a readable session_meta, unordered; `heads` keeps what was read. */
export async function listRolloutHeads(home: string, heads: RolloutHeads, use: HeadUse): Promise<ListedRollout[]> {
  const paths: string[] = [];
  for await (const path of walkRollouts(join(home, SESSIONS_DIR))) paths.push(path);
  const listed: ListedRollout[] = [];
  const toStat: string[] = [];
  for (const path of paths) {
    const whole = use === 'trustWhole' ? heads.whole(path) : undefined;
    if (whole === undefined) toStat.push(path);
    else listed.push({ head: whole, updatedAtMs: null });
  }
  for (const read of await mapLimited(toStat, LIST_READ_CONCURRENCY, (path) => summarise(path, heads, use === 'readAgain'))) {
    if (read !== null) listed.push(read);
  }
  heads.retainOnly(new Set(paths));
  return listed;
}

/** A listed rollout read again: as listed, changed (its head now), or gone / unreadable. */
export type FreshHead =
  | { kind: 'same' | 'changed'; head: RolloutHead; updatedAtMs: number }
  | { kind: 'gone' }
  | { kind: 'unreadable' };

/**
 * Listed rollouts read again, for a page to show: each head as its file has it now, with its
 * mtime, in the order given. Appends never change a head, but a writer that cuts a failed
 * write back and writes another does (in place: no stat tells), and so does a file replaced;
 * `heads` then keeps the new one. A file that cannot be read now (EMFILE, EIO) is forgotten by
 * `heads`, not taken for a change.
 */
export function freshHeads(listed: readonly RolloutHead[], heads: RolloutHeads): Promise<FreshHead[]> {
  return mapLimited(listed, LIST_READ_CONCURRENCY, (head) => freshHead(head, heads));
}

async function freshHead(head: RolloutHead, heads: RolloutHeads): Promise<FreshHead> {
  let file;
  try {
    file = await stat(head.path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'gone' } : unreadable(head, heads);
  }
  let now;
  try {
    now = await readAndKeep(head.path, file, heads);
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
  return (Object.keys(a) as Array<keyof RolloutHead>).every((key) => a[key] === b[key]);
}


// Depth-first over real directories only; a missing or unreadable directory is just empty.
async function* walkRollouts(dir: string): AsyncGenerator<string> {
  if (!(await isRealDirectory(dir))) return;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  // Newest date directories first, so a recent thread is found early. Names are ASCII
  // (dates, rollout-<ts>-<uuid>), so plain comparison orders them and costs far less than
  // localeCompare.
  entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  for (const entry of entries) {
    // Dirent types come from lstat semantics: a symlink is neither a directory nor a file.
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walkRollouts(path);
    else if (entry.isFile() && parseRolloutFileName(entry.name) !== null) yield path;
  }
}

async function isRealDirectory(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function summarise(path: string, heads: RolloutHeads, readAgain: boolean): Promise<{ head: RolloutHead; updatedAtMs: number } | null> {
  try {
    const file = await stat(path);
    const kept = readAgain ? undefined : heads.get(path, fileState(file));
    const head = kept === undefined ? await readAndKeep(path, file, heads) : kept;
    return head === null ? null : { head, updatedAtMs: Math.floor(file.mtimeMs) };
  } catch {
    return null; // vanished or unreadable between the walk and the read
  }
}

const fileState = (file: Stats): RolloutFileState => ({ ino: file.ino, bornMs: file.birthtimeMs, size: file.size });

/** Reads the head of `path`, which `file` is a stat of, and keeps it in `heads`. */
async function readAndKeep(path: string, file: Stats, heads: RolloutHeads): Promise<RolloutHead | null> {
  const read = await readHead(path);
  const head = headOf(path, read.text);
  heads.set(path, fileState(file), head, read.whole);
  return head;
}

function headOf(path: string, text: string): RolloutHead | null {
  const fromName = parseRolloutFileName(basename(path));
  const head = parseRollout(text);
  const meta = head.meta;
  // A file whose meta names another thread is a copy or a corruption; the reference skips it.
  if (meta === null || head.threadId?.toLowerCase() !== fromName?.threadId) return null;
  return {
    threadId: head.threadId as string,
    path,
    createdAtMs: meta.createdAtMs,
    preview: head.preview,
    modelProvider: meta.modelProvider,
    cwd: meta.cwd,
    cliVersion: meta.cliVersion,
    source: meta.source,
    originator: meta.originator,
    model: meta.model,
    historyMode: historyModeOf(meta),
  };
}

/**
 * Whether the file's first line is a whole `session_meta` record. A writer killed during its
 * very first write leaves a file without one: no turn of it was ever acknowledged, and, as for
 * a thread that never reached the disk, there is no rollout to resume.
 */
export async function startsWithSessionMeta(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return false;
  }
  try {
    const chunks: Buffer[] = [];
    for (let read = 0; read < HEAD_READ_LIMIT; ) {
      const chunk = Buffer.alloc(HEAD_CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, HEAD_CHUNK_BYTES, read);
      if (bytesRead === 0) return false;
      const newline = chunk.subarray(0, bytesRead).indexOf(0x0a);
      chunks.push(chunk.subarray(0, newline === -1 ? bytesRead : newline));
      if (newline !== -1) return parseLine(Buffer.concat(chunks).toString('utf8'))?.type === 'session_meta';
      read += bytesRead;
    }
    return false;
  } finally {
    await handle.close();
  }
}

// The complete lines up to and including the first user message (or the whole file if short);
// `whole` when that message was found, so the head is final.
async function readHead(path: string): Promise<{ text: string; whole: boolean }> {
  const handle = await open(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let read = 0;
    while (read < HEAD_READ_LIMIT) {
      const chunk = Buffer.alloc(HEAD_CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, HEAD_CHUNK_BYTES, read);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      read += bytesRead;
      const text = Buffer.concat(chunks).toString('utf8');
      const end = firstUserMessageEnd(text);
      if (end !== -1) return { text: text.slice(0, end), whole: true };
    }
    return { text: Buffer.concat(chunks).toString('utf8'), whole: false };
  } finally {
    await handle.close();
  }
}

// The end of the line holding the first user message event (legacy or paginated), or -1.
function firstUserMessageEnd(text: string): number {
  const marker = /"type":"(?:user_message|item_completed)"/g;
  for (let match = marker.exec(text); match !== null; match = marker.exec(text)) {
    const end = text.indexOf('\n', match.index);
    if (end === -1) return -1; // that line is not complete yet
    const line = text.slice(text.lastIndexOf('\n', match.index) + 1, end);
    if (line.includes('"type":"user_message"') || line.includes('"type":"UserMessage"')) return end + 1;
  }
  return -1;
}
