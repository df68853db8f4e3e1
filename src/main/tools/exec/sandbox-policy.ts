// What a command may touch, as the reference's `SandboxPolicy` (codex-rs/protocol/src/protocol.rs)
// and how `sandbox_mode` + `[sandbox_workspace_write]` in config.toml choose one (the
// reference's `derive_sandbox_policy` in core/src/config). Reads are never restricted: the
// reference's `has_full_disk_read_access()` is `true` for every legacy policy.
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError, type ConfigDocument } from '../../config/config-document.js';

/** The three modes `sandbox_mode` names, spelled as config.toml spells them. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** One sandbox policy; `workspace-write` carries the `[sandbox_workspace_write]` table. */
export type SandboxPolicy =
  | { readonly type: 'danger-full-access' }
  | { readonly type: 'read-only'; readonly networkAccess: boolean }
  | {
      readonly type: 'workspace-write';
      /** Extra writable folders beyond cwd, /tmp and $TMPDIR; absolute. */
      readonly writableRoots: readonly string[];
      readonly networkAccess: boolean;
      /** When true, $TMPDIR is not among the default writable roots. */
      readonly excludeTmpdirEnvVar: boolean;
      /** When true, /tmp is not among the default writable roots. */
      readonly excludeSlashTmp: boolean;
    };

const SANDBOX_MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];

/** The reference's `SandboxPolicy::new_read_only_policy()`: no writes, no network. */
export const READ_ONLY_POLICY: SandboxPolicy = { type: 'read-only', networkAccess: false };

/** The reference's `new_workspace_write_policy()`: cwd, /tmp and $TMPDIR writable, no network. */
export const WORKSPACE_WRITE_POLICY: SandboxPolicy = {
  type: 'workspace-write',
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: false,
  excludeSlashTmp: false,
};

/** True when nothing on disk is protected (the reference skips bwrap entirely then). */
export function hasFullDiskWriteAccess(policy: SandboxPolicy): boolean {
  return policy.type === 'danger-full-access';
}

/** True when the command keeps the host's network namespace. */
export function hasFullNetworkAccess(policy: SandboxPolicy): boolean {
  return policy.type === 'danger-full-access' || policy.networkAccess;
}

/**
 * The policy config.toml asks for. No `sandbox_mode` means read-only (the reference upgrades an
 * unset mode to workspace-write only for a trusted project, which thread-host does not track).
 * Relative `writable_roots` resolve against `baseDir` (the config file's folder, as the
 * reference's `AbsolutePathBuf` deserializer does); `~/` is the home directory.
 */
export function sandboxPolicyFromConfig(document: ConfigDocument, baseDir: string): SandboxPolicy {
  const mode = document.sandbox_mode ?? 'read-only';
  if (typeof mode !== 'string' || !(SANDBOX_MODES as readonly string[]).includes(mode)) {
    throw ConfigError.at('sandbox_mode', `unknown variant \`${String(mode)}\`, expected one of \`read-only\`, \`workspace-write\`, \`danger-full-access\``);
  }
  if (mode === 'read-only') return READ_ONLY_POLICY;
  if (mode === 'danger-full-access') return { type: 'danger-full-access' };
  const table = document.sandbox_workspace_write;
  if (table === undefined) return WORKSPACE_WRITE_POLICY;
  if (typeof table !== 'object' || table === null || Array.isArray(table)) {
    throw ConfigError.at('sandbox_workspace_write', 'invalid type, expected a table');
  }
  const section = table as ConfigDocument;
  return {
    type: 'workspace-write',
    writableRoots: rootList(section.writable_roots, baseDir),
    networkAccess: flag(section, 'network_access'),
    excludeTmpdirEnvVar: flag(section, 'exclude_tmpdir_env_var'),
    excludeSlashTmp: flag(section, 'exclude_slash_tmp'),
  };
}

function flag(section: ConfigDocument, key: string): boolean {
  const value = section[key];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw ConfigError.at(`sandbox_workspace_write.${key}`, `invalid type, expected a boolean`);
  return value;
}

function rootList(value: unknown, baseDir: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw ConfigError.at('sandbox_workspace_write.writable_roots', 'invalid type, expected a sequence of paths');
  }
  return (value as string[]).map((path) => absoluteRoot(path, baseDir));
}

function absoluteRoot(path: string, baseDir: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? resolve(path) : resolve(baseDir, path);
}
