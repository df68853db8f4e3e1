// Where a thread's rollout lives, and how to recognise one by its file name. The layout is the
// reference's (`codex-rs/rollout/src/recorder.rs`), so both implementations can share a
// CODEX_HOME:
//
//   <home>/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<thread uuid>.jsonl
//
// The date directories and the timestamp use LOCAL time, as the reference does
// (`OffsetDateTime::now_local()`); the thread id is what identifies the file, the date only
// spreads files over directories.

import { basename, join } from 'node:path';
import { threadIdOf, type ThreadId } from '../thread-id.js';

/** The directory under CODEX_HOME that holds every live rollout. */
export const SESSIONS_DIR = 'sessions';

/** The flat directory under CODEX_HOME that archived rollouts move to, under their own names. */
export const ARCHIVED_SESSIONS_DIR = 'archived_sessions';

// A rollout name: the local start time, then the thread's UUID. Anchored at both ends so that
// sidecar files (`.jsonl.zst`, editor backups) never match.
const ROLLOUT_NAME =
  /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** What a rollout file name tells us without opening the file. */
export interface RolloutFileName {
  threadId: ThreadId;
  /**
   * The name's time read as UTC, in ms, as the reference reads it (whatever the writer's time
   * zone was): the key `thread/list` orders by creation time. null when it is no real time
   * (a 13th month), which leaves the file out of listings, as the reference does.
   */
  nameTimeMs: number | null;
}

// A rollout the reference started when it reverted the thread (history-base.ts): the thread's
// UUID, then `_` and the file's own id (a UUIDv7, so later files have greater ids).
const REVERTED_ROLLOUT_NAME =
  /^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** The thread and file ids in the name of a rollout a revert started; null for any other name. */
export function parseRevertedRolloutFileName(name: string): { threadId: ThreadId; fileId: string } | null {
  const match = REVERTED_ROLLOUT_NAME.exec(name);
  return match === null ? null : { threadId: threadIdOf(match[1] as string), fileId: (match[2] as string).toLowerCase() };
}

/** The thread a rollout file name belongs to: a thread's first file, or one a revert started. */
export function threadIdOfRolloutName(name: string): ThreadId | null {
  return parseRolloutFileName(name)?.threadId ?? parseRevertedRolloutFileName(name)?.threadId ?? null;
}

/**
 * Which of a thread's files is its rollout (the greatest rank): the newest one a revert
 * started (file ids are UUIDv7, ordered by time), else its first file ('' ranks below any id).
 */
function rolloutFileRank(name: string): string {
  return parseRevertedRolloutFileName(name)?.fileId ?? '';
}

/** Whether the file at `path` is a newer file of its thread than the one at `than` (none: true). */
export function isNewerRolloutFile(path: string, than: string | null | undefined): boolean {
  return than === null || than === undefined || rolloutFileRank(basename(path)) > rolloutFileRank(basename(than));
}

/** The path the reference would choose for a thread created at `createdAtMs` (local time). */
export function rolloutPathFor(home: string, threadId: string, createdAtMs: number): string {
  const at = new Date(createdAtMs);
  const yyyy = String(at.getFullYear()).padStart(4, '0');
  const mm = pad2(at.getMonth() + 1);
  const dd = pad2(at.getDate());
  const stamp = `${yyyy}-${mm}-${dd}T${pad2(at.getHours())}-${pad2(at.getMinutes())}-${pad2(at.getSeconds())}`;
  return join(home, SESSIONS_DIR, yyyy, mm, dd, `rollout-${stamp}-${threadId}.jsonl`);
}

/** The path of the file a revert at `createdAtMs` starts for a thread: its first file's, with `_<file id>`. */
export function revertedRolloutPathFor(home: string, threadId: string, fileId: string, createdAtMs: number): string {
  return rolloutPathFor(home, threadId, createdAtMs).replace(/\.jsonl$/, `_${fileId}.jsonl`);
}

/** Parses `rollout-<ts>-<uuid>.jsonl`; `null` for anything else (including compressed files). */
export function parseRolloutFileName(name: string): RolloutFileName | null {
  const match = ROLLOUT_NAME.exec(name);
  if (match === null) return null;
  // Ids are compared as the lower-case strings the reference prints.
  return { threadId: threadIdOf(match[2] as string), nameTimeMs: nameTime(match[1] as string) };
}

/**
 * `YYYY-MM-DDThh-mm-ss` as UTC ms, or null when a field is out of its range. Arithmetic on the
 * digits (no Date, no split): a listing reads every name in the home each time.
 */
function nameTime(stamp: string): number | null {
  const field = (at: number, length: number): number => {
    let value = 0;
    for (let i = at; i < at + length; i += 1) value = value * 10 + (stamp.charCodeAt(i) - 48);
    return value;
  };
  const year = field(0, 4);
  const month = field(5, 2);
  const day = field(8, 2);
  const hour = field(11, 2);
  const minute = field(14, 2);
  const second = field(17, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * The order a walk of sessions/ visits directory entries in: newest date directory first, so a
 * recent thread is found early. Names are ASCII (dates, rollout-<ts>-<uuid>), so plain
 * comparison orders them and costs far less than localeCompare.
 */
export function newestNameFirst(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? 1 : a.name > b.name ? -1 : 0;
}

/**
 * How the start of a rollout is read: in chunks of HEAD_CHUNK_BYTES, and no further than
 * HEAD_READ_LIMIT (the reference's session_meta alone is ~22 KB, as it embeds the base
 * instructions; a head past the limit is taken as having no first message, or no record).
 */
export const HEAD_CHUNK_BYTES = 64 * 1024;
export const HEAD_READ_LIMIT = 4 * 1024 * 1024;
