// Putting a planned patch on disk. Each new text is first written to a temporary file beside
// its target (same directory, so the rename cannot cross filesystems), and only when every one
// of them is written are they renamed into place and the removed files unlinked:
//
//   stage:  mkdir -p parent, write ".<name>.<random>.apply-patch.tmp"   (failure: nothing changed)
//   commit: rename each temp over its target, then unlink removals      (failure: some changed)
//
// A failure while staging removes the temporaries (and the directories staging created) and
// leaves the disk as it was. A failure while committing cannot be undone file by file without
// keeping backups, so it stops there and reports the files already changed in
// `PatchApplyError.changedPaths`, beyond what the reference does: it writes hunk by hunk and
// reports only the failure, leaving the earlier hunks' writes in place and unnamed.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, realpath, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { PatchApplyError } from './patch-apply-error.js';
import type { PlannedFile } from './patch-plan.js';

interface StagedWrite {
  /** The path the patch named, for messages and `changedPaths`. */
  path: string;
  /** Where the text lands: the path, or the file it links to, so a symlink stays a symlink. */
  target: string;
  temp: string;
}

/** Writes `files` as described above; throws `PatchApplyError` in the reference's words. */
export async function writePlannedFiles(files: readonly PlannedFile[]): Promise<void> {
  const staged: StagedWrite[] = [];
  const createdDirs: string[] = [];
  try {
    for (const file of files) {
      if (file.contents !== null) staged.push(await stage(file.absolutePath, file.contents, createdDirs));
    }
  } catch (error) {
    await discard(staged, createdDirs);
    throw error;
  }
  const changed: string[] = [];
  for (const [index, write] of staged.entries()) {
    try {
      await rename(write.temp, write.target);
    } catch {
      await discard(staged.slice(index), []);
      throw new PatchApplyError(`Failed to write file ${write.path}`, changed);
    }
    changed.push(write.path);
  }
  for (const file of files) {
    if (file.contents !== null || !file.existed) continue;
    try {
      await unlink(file.absolutePath);
    } catch {
      const text = file.removal === 'move' ? 'Failed to remove original' : 'Failed to delete file';
      throw new PatchApplyError(`${text} ${file.absolutePath}`, changed);
    }
    changed.push(file.absolutePath);
  }
}

async function stage(path: string, contents: string, createdDirs: string[]): Promise<StagedWrite> {
  const parent = dirname(path);
  try {
    const created = await mkdir(parent, { recursive: true });
    if (created !== undefined) createdDirs.push(created, ...between(created, parent));
  } catch {
    throw new PatchApplyError(`Failed to create parent directories for ${path}`);
  }
  const target = await realpath(path).catch(() => path);
  // A replaced file keeps its permissions, as an in-place write would.
  const mode = (await stat(target).catch(() => null))?.mode;
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.apply-patch.tmp`);
  try {
    await writeFile(temp, contents, { flag: 'wx', mode: mode ?? 0o666 });
    // The mode given to writeFile passes through the umask; the original's must not.
    if (mode !== undefined) await chmod(temp, mode & 0o7777);
  } catch {
    await rm(temp, { force: true });
    throw new PatchApplyError(`Failed to write file ${path}`);
  }
  return { path, target, temp };
}

// The directories below `top` down to `bottom`, which `mkdir -p` created along with `top`.
function between(top: string, bottom: string): string[] {
  const dirs: string[] = [];
  let current = top;
  for (const part of relative(top, bottom).split('/').filter((p) => p !== '')) {
    current = join(current, part);
    dirs.push(current);
  }
  return dirs;
}

async function discard(staged: readonly StagedWrite[], createdDirs: readonly string[]): Promise<void> {
  for (const write of staged) await rm(write.temp, { force: true });
  // Deepest first; a directory something else has written into meanwhile is left alone.
  for (const dir of [...createdDirs].reverse()) await rmdir(dir).catch(() => undefined);
}
