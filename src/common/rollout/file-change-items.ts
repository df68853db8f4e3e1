// A patch's item (`apply_patch`) in the reference's core spelling, both ways: the rollout's
// `item_completed` (FileChange: the changes keyed by path, with what the patch printed) and
// the wire's item read back (changes sorted by path, as the reference lists them).
import type { FileChangeItem, FileUpdateChange } from '../wire-types.js';
import type { Json } from './rollout-json.js';
import { obj, str } from './rollout-json.js';

const MOVED = '\n\nMoved to: ';

/** The core `FileChange` item. */
export function coreFileChangeItem(item: FileChangeItem, printed: { stdout: string; stderr: string } | undefined): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const change of item.changes) {
    const kind = change.kind;
    if (kind.type === 'update') {
      const moved = kind.move_path === null ? -1 : change.diff.lastIndexOf(MOVED);
      changes[change.path] = { type: 'update', unified_diff: moved === -1 ? change.diff : change.diff.slice(0, moved), move_path: kind.move_path };
    } else changes[change.path] = { type: kind.type, content: change.diff };
  }
  return { type: 'FileChange', id: item.id, changes, status: item.status, stdout: printed?.stdout ?? '', stderr: printed?.stderr ?? '' };
}

/** A core `FileChange` as the wire shows it; null for any other item. */
export function fileChangeItemOf(core: Json, id: string, startedAtMs: number | null, completedAtMs: number | null): FileChangeItem | null {
  if (core.type !== 'FileChange') return null;
  const status = str(core.status);
  return {
    type: 'fileChange',
    id,
    changes: wireChanges(obj(core.changes) ?? {}),
    status: status === 'completed' || status === 'failed' || status === 'declined' ? status : 'inProgress',
    startedAtMs,
    completedAtMs,
  };
}

/** The wire's changes: by path, an update's diff followed by where it moved. */
export function wireChanges(changes: Json): FileUpdateChange[] {
  const list: FileUpdateChange[] = [];
  for (const [path, raw] of Object.entries(changes)) {
    const change = (raw ?? {}) as Json;
    if (change.type === 'update') {
      const movePath = str(change.move_path);
      const diff = str(change.unified_diff) ?? '';
      list.push({ path, kind: { type: 'update', move_path: movePath }, diff: movePath === null ? diff : `${diff}${MOVED}${movePath}` });
    } else list.push({ path, kind: { type: change.type === 'delete' ? 'delete' : 'add' }, diff: str(change.content) ?? '' });
  }
  return list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
