// Everything a patch will do, worked out before anything is written: each hunk is applied in
// order to an in-memory view of the files it touches, so a later hunk sees an earlier one's
// result as the reference (which writes as it goes) would see it on disk, and a hunk that does
// not apply fails the whole patch while the disk is still untouched.
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { deriveNewContents } from './chunk-replacements.js';
import { PatchApplyError, ioErrorText } from './patch-apply-error.js';
import type { FileChange } from './file-change.js';
import type { Hunk, ParsedPatch } from './patch-types.js';
import { unifiedDiff } from './unified-diff.js';

/** The final state of one touched path: new contents, or `null` for removed. */
export interface PlannedFile {
  absolutePath: string;
  contents: string | null;
  /** Whether the path held a file before the patch (a removal of a file never written is a no-op). */
  existed: boolean;
  /** For a removal: a `*** Delete File:` or the source of a `*** Move to:` (their failure texts differ). */
  removal: 'delete' | 'move' | null;
}

/** A patch that applies: its writes, the `fileChange` entries and the reference's summary lines. */
export interface PatchPlan {
  files: PlannedFile[];
  changes: FileChange[];
  summary: { added: string[]; modified: string[]; deleted: string[] };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads what the hunks need under `cwd` and computes every result; throws `PatchApplyError`. */
export async function planPatch(parsed: ParsedPatch, cwd: string): Promise<PatchPlan> {
  if (parsed.hunks.length === 0) throw new PatchApplyError('No files were modified.');
  const view = new FileView();
  const plan: PatchPlan = { files: [], changes: [], summary: { added: [], modified: [], deleted: [] } };
  for (const hunk of parsed.hunks) await planHunk(hunk, cwd, view, plan);
  plan.files = view.touched();
  return plan;
}

async function planHunk(hunk: Hunk, cwd: string, view: FileView, plan: PatchPlan): Promise<void> {
  // Relative paths (the move target's too) are taken from the cwd; absolute ones stay.
  const path = resolve(cwd, hunk.path);
  switch (hunk.type) {
    case 'add': {
      if ((await view.kind(path)) === 'directory') throw new PatchApplyError(`Failed to write file ${path}`);
      view.set(path, hunk.contents);
      plan.changes.push({ path, kind: { type: 'add' }, diff: hunk.contents });
      plan.summary.added.push(hunk.path);
      return;
    }
    case 'delete': {
      const contents = await view.read(path).catch(() => {
        throw new PatchApplyError(`Failed to delete file ${path}`);
      });
      view.set(path, null, 'delete');
      plan.changes.push({ path, kind: { type: 'delete' }, diff: contents });
      plan.summary.deleted.push(hunk.path);
      return;
    }
    case 'update': {
      const original = await view.read(path).catch((error: unknown) => {
        throw new PatchApplyError(`Failed to read file to update ${path}: ${ioErrorText(error)}`);
      });
      const updated = deriveNewContents(original, hunk.chunks, path);
      const movePath = hunk.movePath === null ? null : resolve(cwd, hunk.movePath);
      if (movePath !== null) {
        if ((await view.kind(movePath)) === 'directory') throw new PatchApplyError(`Failed to write file ${movePath}`);
        view.set(movePath, updated);
        if (movePath !== path) view.set(path, null, 'move');
      } else {
        view.set(path, updated);
      }
      plan.changes.push({ path, kind: { type: 'update', move_path: movePath }, diff: unifiedDiff(original, updated) });
      plan.summary.modified.push(hunk.movePath ?? hunk.path);
      return;
    }
  }
}

/** The files as the hunks so far have left them; reads fall through to the disk. */
class FileView {
  private readonly entries = new Map<string, Omit<PlannedFile, 'absolutePath'>>();

  async read(path: string): Promise<string> {
    const entry = this.entries.get(path);
    if (entry === undefined) {
      const contents = UTF8.decode(await readFile(path));
      this.entries.set(path, { contents, existed: true, removal: null });
      return contents;
    }
    if (entry.contents === null) throw Object.assign(new Error('removed by this patch'), { code: 'ENOENT' });
    return entry.contents;
  }

  async kind(path: string): Promise<'file' | 'directory' | 'none'> {
    const entry = this.entries.get(path);
    if (entry !== undefined) return entry.contents === null ? 'none' : 'file';
    const found = await stat(path).catch(() => null);
    return found === null ? 'none' : found.isDirectory() ? 'directory' : 'file';
  }

  set(path: string, contents: string | null, removal: PlannedFile['removal'] = null): void {
    const entry = this.entries.get(path);
    // A path first met here is written, never removed, so whether it existed does not matter.
    if (entry !== undefined) Object.assign(entry, { contents, removal });
    else this.entries.set(path, { contents, existed: false, removal });
  }

  touched(): PlannedFile[] {
    return [...this.entries].map(([absolutePath, entry]) => ({ absolutePath, ...entry }));
  }
}
