// The bubblewrap command line for a policy, built as the reference's linux-sandbox/src/bwrap.rs
// builds it for the legacy policies (full disk read, no deny-read globs):
//
//   --new-session --die-with-parent
//   --ro-bind / / --dev /dev                   everything read-only, a minimal writable /dev
//   --bind R R                                 each existing writable root, shallowest first
//   --ro-bind S S | --perms 555 --tmpfs S --remount-ro S | --ro-bind-data FD S
//                                              its protected subpaths, re-applied after it
//   --unshare-user --unshare-pid [--unshare-net] [--proc /proc] [--chdir CWD]
//   -- argv...
//
// The order matters: a later mount wins over an earlier one at the same path. The reference
// also applies seccomp inside the sandbox (its second stage); network isolation here rests on
// the network namespace alone.
import { lstatSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { hasFullDiskWriteAccess, hasFullNetworkAccess, type SandboxPolicy } from './sandbox-policy.js';
import {
  PROTECTED_METADATA_NAMES,
  canonicalOrSelf,
  canonicalTargetIfSymlinked,
  exists,
  firstMissingComponent,
  firstWritableSymlink,
  isWithin,
  isWithinAny,
  pathDepth,
} from './bwrap-paths.js';
import type { SyntheticMountTarget } from './synthetic-mounts.js';
import { writableRootsWithCwd } from './writable-roots.js';

/** The fd the runner passes /dev/null on, for `--ro-bind-data` (stdin, stdout, stderr come first). */
export const NULL_DATA_FD = 3;

/** How bwrap is to be run; `mountProc` is false where the probe found `--proc` refused. */
export interface BwrapOptions {
  readonly mountProc: boolean;
  /** $TMPDIR of the host, for the default writable roots. */
  readonly tmpdir?: string | undefined;
}

/** What to execute for a command: itself, or bwrap around it. */
export type SandboxedCommand =
  | { readonly kind: 'unsandboxed'; readonly argv: readonly string[] }
  | {
      readonly kind: 'bwrap';
      /** The flags after `bwrap`, ending in `-- argv...`. */
      readonly args: readonly string[];
      /** Whether the args name {@link NULL_DATA_FD}, so the runner must open it. */
      readonly needsNullFd: boolean;
      readonly syntheticTargets: readonly SyntheticMountTarget[];
    };

/** A policy that cannot be enforced here; the command must not run. */
export class SandboxSetupError extends Error {}

/** The command line for `argv` under `policy`, run in `cwd`. Throws `SandboxSetupError`. */
export function sandboxedCommand(
  argv: readonly string[],
  policy: SandboxPolicy,
  cwd: string,
  options: BwrapOptions,
): SandboxedCommand {
  // Full disk write with full network: no sandbox at all, as the reference does.
  if (hasFullDiskWriteAccess(policy)) return { kind: 'unsandboxed', argv };
  const mounts = new MountPlan();
  mounts.filesystem(policy, cwd, options.tmpdir);
  const args = ['--new-session', '--die-with-parent', ...mounts.args];
  // Explicit, because bwrap skips its automatic user namespace when run as uid 0.
  args.push('--unshare-user', '--unshare-pid');
  if (!hasFullNetworkAccess(policy)) args.push('--unshare-net');
  if (options.mountProc) args.push('--proc', '/proc');
  const canonicalCwd = canonicalOrSelf(cwd);
  // Only canonical roots are mounted, so a cwd reached through a symlink is entered by its target.
  if (canonicalCwd !== cwd) args.push('--chdir', canonicalCwd);
  args.push('--', ...argv);
  return { kind: 'bwrap', args, needsNullFd: mounts.needsNullFd, syntheticTargets: mounts.synthetic };
}

/** The filesystem half of the command line, collected in order. */
class MountPlan {
  readonly args: string[] = ['--ro-bind', '/', '/', '--dev', '/dev'];
  readonly synthetic: SyntheticMountTarget[] = [];
  needsNullFd = false;

  filesystem(policy: SandboxPolicy, cwd: string, tmpdir: string | undefined): void {
    // bwrap needs bind sources to exist; a missing root (another platform's path) is skipped.
    const roots = writableRootsWithCwd(policy, cwd, tmpdir).filter((root) => exists(root.root));
    const allowed: string[] = [];
    for (const { root } of roots) {
      allowed.push(root);
      const target = canonicalTargetIfSymlinked(root);
      if (target !== null) allowed.push(target);
    }
    const sorted = [...roots].sort((a, b) => pathDepth(a.root) - pathDepth(b.root));
    for (const { root, readOnlySubpaths } of sorted) {
      const target = canonicalTargetIfSymlinked(root);
      const mountRoot = target ?? root;
      this.args.push('--bind', mountRoot, mountRoot);
      const subpaths = readOnlySubpaths
        .map((subpath) => (target !== null && isWithin(subpath, root) ? target + subpath.slice(root.length) : subpath))
        .sort((a, b) => pathDepth(a) - pathDepth(b));
      for (const subpath of subpaths) this.readOnly(subpath, allowed);
    }
  }

  /** The reference's `append_read_only_subpath_args`. */
  private readOnly(subpath: string, allowed: readonly string[]): void {
    const symlink = firstWritableSymlink(subpath, allowed);
    if (symlink !== null) {
      throw new SandboxSetupError(
        `cannot enforce sandbox read-only path ${subpath} because it crosses writable symlink ${symlink}`,
      );
    }
    const empty = emptyMetadataPath(subpath);
    if (empty !== null && isWithinAny(subpath, allowed)) {
      // Possibly left by another sandbox's setup: protect it as if it were missing.
      if (empty.kind === 'emptyFile') this.emptyFile(subpath, empty.id);
      else this.emptyDirectory(subpath, empty.id);
      return;
    }
    if (!exists(subpath)) {
      const missing = firstMissingComponent(subpath);
      if (missing === null || !isWithinAny(missing, allowed)) return;
      if (PROTECTED_METADATA_NAMES.has(basename(missing))) this.emptyDirectory(missing, null);
      else this.emptyFile(missing, null);
      return;
    }
    if (isWithinAny(subpath, allowed)) this.args.push('--ro-bind', subpath, subpath);
  }

  private emptyFile(path: string, preExisting: SyntheticMountTarget['preExisting']): void {
    this.needsNullFd = true;
    this.args.push('--ro-bind-data', String(NULL_DATA_FD), path);
    this.synthetic.push({ path, kind: 'emptyFile', preExisting });
  }

  private emptyDirectory(path: string, preExisting: SyntheticMountTarget['preExisting']): void {
    this.args.push('--perms', '555', '--tmpfs', path, '--remount-ro', path);
    this.synthetic.push({ path, kind: 'emptyDirectory', preExisting });
  }
}

/** A protected metadata path that exists but is an empty file or directory. */
function emptyMetadataPath(path: string): { kind: SyntheticMountTarget['kind']; id: { dev: number; ino: number } } | null {
  if (!PROTECTED_METADATA_NAMES.has(basename(path))) return null;
  try {
    const stats = lstatSync(path);
    const id = { dev: stats.dev, ino: stats.ino };
    if (stats.isFile() && stats.size === 0) return { kind: 'emptyFile', id };
    if (stats.isDirectory() && readdirSync(path).length === 0) return { kind: 'emptyDirectory', id };
  } catch {
    // Missing: the caller's missing-path branch handles it.
  }
  return null;
}
