// Mount targets bwrap has to create on the host. Protecting a missing `.codex` means mounting an
// empty read-only directory there, and bwrap makes the mount point through the writable bind,
// so an empty `.codex` appears in the real workspace. The reference removes it after bwrap
// exits (linux-sandbox/src/bwrap_mount_cleanup.rs); here the removal also waits for the last
// command of this host that uses the same target, because removing a mount point detaches the
// mount in every other sandbox still running on it.
import { lstatSync, readdirSync, rmdirSync, unlinkSync, type Stats } from 'node:fs';

/** An empty file or directory bwrap creates (or found empty) at a protected path. */
export interface SyntheticMountTarget {
  readonly path: string;
  readonly kind: 'emptyFile' | 'emptyDirectory';
  /** The identity of an empty path that was already there, so cleanup leaves it alone. */
  readonly preExisting: { readonly dev: number; readonly ino: number } | null;
}

const users = new Map<string, number>();

/** Marks `targets` as in use by one more command; call before spawning bwrap. */
export function holdSyntheticTargets(targets: readonly SyntheticMountTarget[]): void {
  for (const target of targets) users.set(target.path, (users.get(target.path) ?? 0) + 1);
}

/** Drops one use of each target; the last user removes what bwrap left behind. */
export function releaseSyntheticTargets(targets: readonly SyntheticMountTarget[]): void {
  for (const target of targets) {
    const left = (users.get(target.path) ?? 1) - 1;
    if (left > 0) {
      users.set(target.path, left);
      continue;
    }
    users.delete(target.path);
    removeIfSynthetic(target);
  }
}

function removeIfSynthetic(target: SyntheticMountTarget): void {
  let stats: Stats;
  try {
    stats = lstatSync(target.path);
  } catch {
    return;
  }
  if (target.preExisting !== null && target.preExisting.dev === stats.dev && target.preExisting.ino === stats.ino) return;
  try {
    if (target.kind === 'emptyFile' && stats.isFile() && stats.size === 0) unlinkSync(target.path);
    if (target.kind === 'emptyDirectory' && stats.isDirectory() && readdirSync(target.path).length === 0) rmdirSync(target.path);
  } catch {
    // Another process filled or removed it meanwhile: what is there now is not ours to delete.
  }
}
