// Archived threads, kept where codex 0.171.0 keeps them: the rollout file moved, under its own
// name, from <home>/sessions/YYYY/MM/DD/ to the flat <home>/archived_sessions/, and moved back
// into the date directory its name gives when the thread is unarchived (its mtime, the
// thread's `updatedAt`, set to the time of the move, as the reference does). Each step is an
// async fs call with a deadline (fs-deadline.ts); nothing here blocks the main thread.
import { basename, join } from 'node:path';
import { fsPromises } from '../../lazy-builtin.js';
import { ARCHIVED_SESSIONS_DIR, isNewerRolloutFile, SESSIONS_DIR, threadIdOfRolloutName } from '../../../common/rollout/rollout-path.js';
import { withFsDeadline } from './fs-deadline.js';
import type { ThreadId } from '../../../common/thread-id.js';

/**
 * The archived rollout of `threadId` (the newest of its files, when the reference reverted it:
 * history-base.ts), or null when <home>/archived_sessions holds none.
 */
export async function findArchivedRollout(home: string, threadId: ThreadId): Promise<string | null> {
  return newestOf(await archivedThreadFiles(home, threadId));
}

const newestOf = (files: readonly string[]): string | null => files.reduce<string | null>((newest, path) => (isNewerRolloutFile(path, newest) ? path : newest), null);

/** Every archived file of `threadId`: its first file and those reverts started. */
export async function archivedThreadFiles(home: string, threadId: ThreadId): Promise<string[]> {
  const dir = join(home, ARCHIVED_SESSIONS_DIR);
  let entries;
  try {
    entries = await withFsDeadline(fsPromises().readdir(dir, { withFileTypes: true }), `reading ${dir}`);
  } catch {
    return []; // no archive yet, or one that cannot be read: nothing archived to find
  }
  // A symbolic link is neither a file nor a directory here: nothing outside the home is returned.
  return entries.filter((entry) => entry.isFile() && threadIdOfRolloutName(entry.name) === threadId).map((entry) => join(dir, entry.name));
}

/** Moves a thread's live files into the archive, as the reference moves every file of a reverted thread. */
export async function archiveRollouts(home: string, paths: readonly string[]): Promise<void> {
  const dir = join(home, ARCHIVED_SESSIONS_DIR);
  await withFsDeadline(fsPromises().mkdir(dir, { recursive: true }), `creating ${dir}`);
  for (const path of paths) await withFsDeadline(fsPromises().rename(path, join(dir, basename(path))), `moving ${path} to ${dir}`);
}

/**
 * Moves a thread's archived files back to the date directories their names give; returns the
 * new path of its rollout (the newest file), or null when none was archived.
 */
export async function unarchiveRollouts(home: string, threadId: ThreadId, nowMs: number): Promise<string | null> {
  const files = await archivedThreadFiles(home, threadId);
  const newest = newestOf(files);
  if (newest === null) return null;
  let moved = '';
  for (const path of files) {
    const target = await unarchiveRollout(home, path, nowMs);
    if (path === newest) moved = target;
  }
  return moved;
}

/** Moves an archived rollout back to the date directory its name gives; returns its new path. */
async function unarchiveRollout(home: string, archivedPath: string, nowMs: number): Promise<string> {
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
