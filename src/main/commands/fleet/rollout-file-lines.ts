// A rollout file as the lines the store keeps: its complete lines, exactly as written, so that
// an export rebuilds the same bytes. What the store cannot hold that way is refused, with the
// reason: bytes that are not UTF-8 (text would replace them), a NUL byte (PostgreSQL's text
// cannot hold one), or a first line that is not this thread's session_meta.
//
// A rollout whose session_meta names a history base (a paginated fork, or the file a revert
// started: history-base.ts) holds only its own lines; the store has no files to name, so it
// keeps such a thread's history itself, as a fork or revert made on the store does: the
// session_meta without its base, then the base's lines, then the file's own (`withBaseInlined`).
import { basename } from 'node:path';
import { historyBaseOf, withHistoryBase } from '../../../common/rollout/history-base.js';
import { parseRevertedRolloutFileName, parseRolloutFileName } from '../../../common/rollout/rollout-path.js';
import { parseLine, str } from '../../../common/rollout/rollout-json.js';
import type { HistoryMode } from '../../../common/rollout/rollout-reader.js';
import { threadIdOf, type ThreadId } from '../../../common/thread-id.js';

export type RolloutFileLines =
  | {
      kind: 'lines';
      threadId: ThreadId;
      /** The name's time, read as UTC (thread/list's creation key). */
      createdAtMs: number;
      historyMode: HistoryMode;
      /** The complete lines (each was ended by a newline), joined back as they were. */
      text: string;
      lines: string[];
      /** Bytes after the last newline: a write cut short, left out. */
      tornBytes: number;
    }
  | { kind: 'refused'; reason: string };

// Nothing replaced and nothing dropped: an export must give back every byte. A byte-order
// mark is kept, so a file starting with one is refused below (its first line is then no JSON).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The lines of the rollout whose bytes are `bytes`, found at `path`. */
export function rolloutFileLines(path: string, bytes: Buffer): RolloutFileLines {
  const name = rolloutName(basename(path));
  if (name === null || name.nameTimeMs === null) return { kind: 'refused', reason: 'its name is not a rollout name with a real time' };
  if (bytes.includes(0)) return { kind: 'refused', reason: 'it holds a NUL byte, which PostgreSQL text cannot store' };
  let decoded: string;
  try {
    decoded = UTF8.decode(bytes);
  } catch {
    return { kind: 'refused', reason: 'it is not valid UTF-8' };
  }
  const end = decoded.lastIndexOf('\n') + 1;
  const text = decoded.slice(0, end);
  const lines = text === '' ? [] : text.slice(0, -1).split('\n');
  const meta = lines.length === 0 ? null : parseLine(lines[0]!);
  if (meta?.type !== 'session_meta') return { kind: 'refused', reason: 'its first line is not a whole session_meta record' };
  const metaId = str(meta.payload.id);
  if (metaId === null || threadIdOf(metaId) !== name.threadId) return { kind: 'refused', reason: 'its session_meta names another thread' };
  return {
    kind: 'lines',
    threadId: name.threadId,
    createdAtMs: name.nameTimeMs,
    historyMode: meta.payload.history_mode === 'paginated' ? 'paginated' : 'legacy',
    text,
    lines,
    tornBytes: Buffer.byteLength(decoded.slice(end)),
  };
}

/** A thread's first file's name, or a reverted one's (`…-<thread id>_<file id>.jsonl`) read as its thread's. */
function rolloutName(name: string) {
  return parseRolloutFileName(parseRevertedRolloutFileName(name) === null ? name : name.replace(/_[0-9a-f-]{36}\.jsonl$/i, '.jsonl'));
}

// The member a fork's or revert's session_meta names its base with (rollout-lines.ts writes it flat).
const HISTORY_BASE_MEMBER = /,"history_base":\{[^{}]*\}/;

/**
 * The bytes of the rollout at `path` with its history base put in and no longer named; the
 * bytes as they are when it names none (or they are no UTF-8: refused after).
 */
export function withBaseInlined(path: string, bytes: Buffer): Buffer {
  const firstEnd = bytes.indexOf(0x0a);
  if (historyBaseOf(bytes.subarray(0, firstEnd === -1 ? bytes.length : firstEnd).toString('utf8')) === null) return bytes;
  let own: string;
  try {
    own = UTF8.decode(bytes);
  } catch {
    return bytes;
  }
  const expanded = withHistoryBase(path, own);
  const headEnd = expanded.indexOf('\n');
  return Buffer.from(expanded.slice(0, headEnd).replace(HISTORY_BASE_MEMBER, '') + expanded.slice(headEnd));
}
