// Archived threads, kept where codex 0.171.0 keeps them: the rollout file moved, under its own
// name, from <home>/sessions/YYYY/MM/DD/ to the flat <home>/archived_sessions/, and moved back
// into the date directory its name gives when the thread is unarchived (its mtime, the
// thread's `updatedAt`, set to the time of the move, as the reference does). Each step is an
// async fs call with a deadline (fs-deadline.ts); nothing here blocks the main thread.
import { basename, join } from 'node:path';
import { fsPromises } from '../lazy-builtin.js';
import { parseRolloutFileName, SESSIONS_DIR } from '../../common/rollout/rollout-path.js';
import { withFsDeadline } from './fs-deadline.js';

export const ARCHIVED_SESSIONS_DIR = 'archived_sessions';

/** The archived rollout of `threadId`, or null when <home>/archived_sessions holds none. */
export async function findArchivedRollout(home: string, threadId: string): Promise<string | null> {
  const dir = join(home, ARCHIVED_SESSIONS_DIR);
  const wanted = threadId.toLowerCase();
  let entries;
  try {
    entries = await withFsDeadline(fsPromises().readdir(dir, { withFileTypes: true }), `reading ${dir}`);
  } catch {
    return null; // no archive yet, or one that cannot be read: nothing archived to find
  }
  // A symbolic link is neither a file nor a directory here: nothing outside the home is returned.
  const entry = entries.find((candidate) => candidate.isFile() && parseRolloutFileName(candidate.name)?.threadId === wanted);
  return entry === undefined ? null : join(dir, entry.name);
}

/** Moves a live rollout into the archive; returns its new path. */
export async function archiveRollout(home: string, path: string): Promise<string> {
  const dir = join(home, ARCHIVED_SESSIONS_DIR);
  const target = join(dir, basename(path));
  await withFsDeadline(fsPromises().mkdir(dir, { recursive: true }), `creating ${dir}`);
  await withFsDeadline(fsPromises().rename(path, target), `moving ${path} to ${dir}`);
  return target;
}

/** Moves an archived rollout back to the date directory its name gives; returns its new path. */
export async function unarchiveRollout(home: string, archivedPath: string, nowMs: number): Promise<string> {
  const name = basename(archivedPath);
  // rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl: the date directories are the name's own digits.
  const [yyyy, mm, dd] = [name.slice(8, 12), name.slice(13, 15), name.slice(16, 18)];
  const dir = join(home, SESSIONS_DIR, yyyy, mm, dd);
  const target = join(dir, name);
  await withFsDeadline(fsPromises().mkdir(dir, { recursive: true }), `creating ${dir}`);
  await withFsDeadline(fsPromises().rename(archivedPath, target), `moving ${archivedPath} to ${dir}`);
  const now = new Date(nowMs);
  await withFsDeadline(fsPromises().utimes(target, now, now), `touching ${target}`);
  return target;
}
