// Path questions bwrap-args.ts asks of the real filesystem, as the reference's bwrap.rs asks
// them: walking a path component by component, so that a symlink anywhere along it is seen.
import { lstatSync, realpathSync, statSync } from 'node:fs';

/** The names whose missing or empty copies become synthetic mount targets (reference: `is_protected_metadata_name`). */
export const PROTECTED_METADATA_NAMES: ReadonlySet<string> = new Set(['.git', '.agents', '.codex']);

/** `path` and each of its ancestors, shortest first (`/a/b` → `/a`, `/a/b`). */
function prefixes(path: string): string[] {
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  const out: string[] = [];
  let current = '';
  for (const part of parts) {
    if (part === '..') current = current.slice(0, Math.max(0, current.lastIndexOf('/')));
    else current = `${current}/${part}`;
    out.push(current === '' ? '/' : current);
  }
  return out;
}

/** Component-wise `starts_with`: `/a/bc` is not within `/a/b`. */
export function isWithin(path: string, root: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

export function isWithinAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isWithin(path, root));
}

/** Number of components, counting the root (reference: `path_depth`). */
export function pathDepth(path: string): number {
  return path.split('/').filter((part) => part !== '').length + 1;
}

/** Whether `path` exists, following symlinks (Rust's `Path::exists`). */
export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The components of `path` that are symlinks, in order, up to the first that does not exist. */
function* symlinkPrefixes(path: string): Generator<string> {
  for (const prefix of prefixes(path)) {
    let isLink: boolean;
    try {
      isLink = lstatSync(prefix).isSymbolicLink();
    } catch {
      return;
    }
    if (isLink) yield prefix;
  }
}

/** The resolved target when some component of `path` is a symlink; null for a plain path. */
export function canonicalTargetIfSymlinked(path: string): string | null {
  for (const _link of symlinkPrefixes(path)) {
    try {
      const target = realpathSync(path);
      return target === path ? null : target;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The first symlink along `path` that lies under a writable root. The sandboxed process can
 * replace such a link, so no mount made through it at startup can be relied on.
 */
export function firstWritableSymlink(path: string, allowedWritePaths: readonly string[]): string | null {
  for (const link of symlinkPrefixes(path)) if (isWithinAny(link, allowedWritePaths)) return link;
  return null;
}

/** The first component of `path` that does not exist (mounting there stops its creation). */
export function firstMissingComponent(path: string): string | null {
  return prefixes(path).find((prefix) => !exists(prefix)) ?? null;
}

/** The command's cwd with symlinks resolved, or as given when it cannot be resolved. */
export function canonicalOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
