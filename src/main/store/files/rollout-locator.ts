// Finds rollouts under <home>/sessions by walking it, by file name for one thread (the
// reference's fallback walk, `find_thread_path_by_id_str_in_subdir` in codex-rs/rollout/src/
// list.rs). `thread/list` reads the heads in its own worker (src/stored-reads/head-reads.ts).
//
// The walk never follows symbolic links, so nothing outside <home>/sessions is ever opened or
// returned, whatever a thread id or a planted link says.

import type { Dirent } from 'node:fs';
import { basename, join } from 'node:path';
import { fsPromises } from '../../lazy-builtin.js';
import { HEAD_CHUNK_BYTES, HEAD_READ_LIMIT, newestNameFirst, parseRolloutFileName, SESSIONS_DIR, threadIdOfRolloutName } from '../../../common/rollout/rollout-path.js';
import { parseLine } from '../../../common/rollout/rollout-json.js';
import type { ThreadId } from '../../../common/thread-id.js';

/** The rollout file of `threadId`, or null if there is none under <home>/sessions. */
export async function findRolloutPath(home: string, threadId: ThreadId): Promise<string | null> {
  for await (const path of walkRollouts(join(home, SESSIONS_DIR))) {
    if (parseRolloutFileName(basename(path))?.threadId === threadId) return path;
  }
  return null;
}

/** Every file of `threadId` under <home>/sessions: its first file and those reverts started. */
export async function liveThreadFiles(home: string, threadId: ThreadId): Promise<string[]> {
  const files: string[] = [];
  for await (const path of walkRollouts(join(home, SESSIONS_DIR))) {
    if (threadIdOfRolloutName(basename(path)) === threadId) files.push(path);
  }
  return files;
}

/** Every rollout file under <home>/sessions (the files reverts started too), newest date directory first. */
export function walkRolloutPaths(home: string): AsyncGenerator<string> {
  return walkRollouts(join(home, SESSIONS_DIR));
}

// Depth-first over real directories only; a missing or unreadable directory is just empty.
async function* walkRollouts(dir: string): AsyncGenerator<string> {
  if (!(await isRealDirectory(dir))) return;
  let entries: Dirent[];
  try {
    entries = await fsPromises().readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort(newestNameFirst);
  for (const entry of entries) {
    // Dirent types come from lstat semantics: a symlink is neither a directory nor a file.
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walkRollouts(path);
    else if (entry.isFile() && threadIdOfRolloutName(entry.name) !== null) yield path;
  }
}

async function isRealDirectory(path: string): Promise<boolean> {
  try {
    return (await fsPromises().lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether the file's first line is a whole `session_meta` record. A writer killed during its
 * very first write leaves a file without one: no turn of it was ever acknowledged, and, as for
 * a thread that never reached the disk, there is no rollout to resume. A file that cannot be
 * opened or read counts as one without.
 */
export async function startsWithSessionMeta(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await fsPromises().open(path, 'r');
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
  } catch {
    return false; // a read that fails (EIO) is as good as no session_meta
  } finally {
    await handle.close().catch(() => undefined);
  }
}
