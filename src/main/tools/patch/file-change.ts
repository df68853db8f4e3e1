// A changed file as the app-server's `fileChange` item carries it (`FileUpdateChange` and
// `PatchChangeKind` in the v2 protocol schema): the diff of an update is its unified diff, and
// that of an add or a delete is the whole text added or removed, as codex's app-server fills it.

/** `PatchChangeKind` on the wire; `move_path` keeps the wire's spelling. */
export type PatchChangeKind = { type: 'add' } | { type: 'delete' } | { type: 'update'; move_path: string | null };

/** `FileUpdateChange` on the wire, with an absolute `path`. */
export interface FileChange {
  path: string;
  kind: PatchChangeKind;
  diff: string;
}
