// Where a workspace-write command may write, and what stays read-only inside those places: the
// reference's `get_writable_roots_with_cwd` and `default_read_only_subpaths_for_writable_root`
// (codex-rs/protocol/src/protocol.rs, permissions.rs). The protected subpaths are the ones a
// write could turn into code the user runs later: `.git` (hooks, config), the agents' skills
// and the project's `.codex` config.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import type { SandboxPolicy } from './sandbox-policy.js';

/** A writable folder and the subpaths under it that stay read-only. */
export interface WritableRoot {
  readonly root: string;
  readonly readOnlySubpaths: readonly string[];
}

/**
 * The writable roots of `policy` for a command in `cwd`: the configured roots, then cwd, then
 * /tmp (when it is a directory, unless excluded), then `tmpdir` ($TMPDIR of the host, unless
 * excluded). Read-only and full-access policies have none (full access needs none).
 */
export function writableRootsWithCwd(policy: SandboxPolicy, cwd: string, tmpdir = process.env.TMPDIR): WritableRoot[] {
  if (policy.type !== 'workspace-write') return [];
  const roots: string[] = [...policy.writableRoots, resolve(cwd)];
  if (!policy.excludeSlashTmp && isDirectory('/tmp')) roots.push('/tmp');
  // The reference ignores a relative or empty TMPDIR rather than resolving it.
  if (!policy.excludeTmpdirEnvVar && tmpdir !== undefined && tmpdir !== '' && isAbsolute(tmpdir)) roots.push(resolve(tmpdir));
  const cwdRoot = resolve(cwd);
  return [...new Set(roots)].map((root) => ({ root, readOnlySubpaths: readOnlySubpathsOf(root, root === cwdRoot) }));
}

/**
 * `.git` when it exists (a directory, or a worktree's pointer file together with the gitdir it
 * points at), `.agents` when it is a directory, and `.codex` when it is a directory or when the
 * root is the cwd: there it is protected before it exists, so the command cannot create it.
 */
export function readOnlySubpathsOf(root: string, protectMissingDotCodex: boolean): string[] {
  const subpaths: string[] = [];
  const git = `${root}/.git`;
  const gitKind = fileKind(git);
  if (gitKind === 'file') {
    const gitdir = gitdirOf(git);
    if (gitdir !== null) subpaths.push(gitdir);
  }
  if (gitKind !== 'missing') subpaths.push(git);
  if (fileKind(`${root}/.agents`) === 'directory') subpaths.push(`${root}/.agents`);
  if (protectMissingDotCodex || fileKind(`${root}/.codex`) === 'directory') subpaths.push(`${root}/.codex`);
  return [...new Set(subpaths)];
}

/** The folder a `.git` pointer file (`gitdir: <path>`) names, when it exists. */
function gitdirOf(dotGit: string): string | null {
  if (basename(dotGit) !== '.git') return null;
  let text: string;
  try {
    text = readFileSync(dotGit, 'utf8');
  } catch {
    return null;
  }
  const colon = text.trim().indexOf(':');
  if (colon === -1) return null;
  const raw = text.trim().slice(colon + 1).trim();
  if (raw === '') return null;
  const gitdir = resolve(dirname(dotGit), raw);
  return fileKind(gitdir) === 'missing' ? null : gitdir;
}

function fileKind(path: string): 'file' | 'directory' | 'other' | 'missing' {
  try {
    const stats = statSync(path);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}

function isDirectory(path: string): boolean {
  return fileKind(path) === 'directory';
}
