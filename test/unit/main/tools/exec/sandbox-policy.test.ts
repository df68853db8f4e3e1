// Policies from config.toml, their writable roots, and the bwrap command line built for them,
// as the reference builds them (protocol.rs, linux-sandbox/src/bwrap.rs).
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ConfigError } from '../../../../../src/main/config/config-document.js';
import { SandboxSetupError, sandboxedCommand, type SandboxedCommand } from '../../../../../src/main/tools/exec/bwrap-args.js';
import { CommandRunner } from '../../../../../src/main/tools/exec/command-runner.js';
import { sandboxPolicyFromConfig, type SandboxPolicy } from '../../../../../src/main/tools/exec/sandbox-policy.js';
import { writableRootsWithCwd } from '../../../../../src/main/tools/exec/writable-roots.js';

let base: string;
let ws: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'exec-policy-'));
  ws = join(base, 'ws');
  mkdirSync(ws);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function bwrapOf(command: SandboxedCommand): Extract<SandboxedCommand, { kind: 'bwrap' }> {
  if (command.kind !== 'bwrap') throw new Error('expected a bwrap command');
  return command;
}

const workspaceOnly: SandboxPolicy = { type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true };

test('sandbox_mode and [sandbox_workspace_write] map to the reference policies', () => {
  expect(sandboxPolicyFromConfig({}, '/home/u/.codex')).toEqual({ type: 'read-only', networkAccess: false });
  expect(sandboxPolicyFromConfig({ sandbox_mode: 'danger-full-access' }, '/c')).toEqual({ type: 'danger-full-access' });
  expect(sandboxPolicyFromConfig({ sandbox_mode: 'workspace-write' }, '/c')).toEqual({
    type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false,
  });
  const document = {
    sandbox_mode: 'workspace-write',
    sandbox_workspace_write: { writable_roots: ['/srv/data', 'rel'], network_access: true, exclude_slash_tmp: true },
  };
  expect(sandboxPolicyFromConfig(document, '/c')).toEqual({
    type: 'workspace-write', writableRoots: ['/srv/data', '/c/rel'], networkAccess: true, excludeTmpdirEnvVar: false, excludeSlashTmp: true,
  });
  expect(() => sandboxPolicyFromConfig({ sandbox_mode: 'yolo' }, '/c')).toThrow(
    ConfigError.at('sandbox_mode', 'unknown variant `yolo`, expected one of `read-only`, `workspace-write`, `danger-full-access`'),
  );
});

test('workspace-write writes to the extra roots, cwd, /tmp and $TMPDIR; .git, .agents and .codex stay read-only', () => {
  mkdirSync(join(ws, '.git'));
  mkdirSync(join(ws, '.agents'));
  const extra = join(base, 'extra');
  mkdirSync(join(extra, '.codex'), { recursive: true });
  const policy: SandboxPolicy = { ...workspaceOnly, writableRoots: [extra], excludeSlashTmp: false, excludeTmpdirEnvVar: false };
  expect(writableRootsWithCwd(policy, ws, '/var/tmp')).toEqual([
    { root: extra, readOnlySubpaths: [join(extra, '.codex')] },
    { root: ws, readOnlySubpaths: [join(ws, '.git'), join(ws, '.agents'), join(ws, '.codex')] },
    // /tmp is the machine's: whatever of these it has (a sandbox may have left mount points) stays read-only too.
    { root: '/tmp', readOnlySubpaths: ['.git', '.agents', '.codex'].map((name) => join('/tmp', name)).filter((path) => existsSync(path)) },
    { root: '/var/tmp', readOnlySubpaths: [] },
  ]);
  expect(writableRootsWithCwd({ type: 'read-only', networkAccess: false }, ws)).toEqual([]);
});

test('a worktree .git pointer file protects the gitdir it points at too', () => {
  const gitdir = join(base, 'main.git', 'worktrees', 'ws');
  mkdirSync(gitdir, { recursive: true });
  writeFileSync(join(ws, '.git'), `gitdir: ${gitdir}\n`);
  expect(writableRootsWithCwd(workspaceOnly, ws)[0]!.readOnlySubpaths).toEqual([gitdir, join(ws, '.git'), join(ws, '.codex')]);
});

test('the bwrap command line for workspace-write, in the reference order', () => {
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  expect(sandboxedCommand(['true'], workspaceOnly, ws, { mountProc: true })).toEqual({
    kind: 'bwrap',
    args: [
      '--new-session', '--die-with-parent',
      '--ro-bind', '/', '/', '--dev', '/dev',
      '--bind', ws, ws,
      '--ro-bind', join(ws, '.git'), join(ws, '.git'),
      '--perms', '555', '--tmpfs', join(ws, '.codex'), '--remount-ro', join(ws, '.codex'),
      '--unshare-user', '--unshare-pid', '--unshare-net', '--proc', '/proc',
      '--', 'true',
    ],
    needsNullFd: false,
    syntheticTargets: [{ path: join(ws, '.codex'), kind: 'emptyDirectory', preExisting: null }],
  });
});

test('read-only with network keeps the network namespace; danger-full-access is not wrapped', () => {
  expect(sandboxedCommand(['ls'], { type: 'read-only', networkAccess: true }, ws, { mountProc: false })).toEqual({
    kind: 'bwrap',
    args: ['--new-session', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--', 'ls'],
    needsNullFd: false,
    syntheticTargets: [],
  });
  expect(sandboxedCommand(['ls'], { type: 'danger-full-access' }, ws, { mountProc: true })).toEqual({ kind: 'unsandboxed', argv: ['ls'] });
});

test("an empty .git (perhaps left by another sandbox's setup) is masked like a missing one, and kept", () => {
  mkdirSync(join(ws, '.git'));
  const { args, syntheticTargets } = bwrapOf(sandboxedCommand(['true'], workspaceOnly, ws, { mountProc: true }));
  expect(args.slice(10, 16)).toEqual(['--perms', '555', '--tmpfs', join(ws, '.git'), '--remount-ro', join(ws, '.git')]);
  expect(syntheticTargets[0]!.preExisting).not.toBeNull();
});

test('a cwd reached through a symlink is bound and entered by its target', () => {
  const alias = join(base, 'alias');
  symlinkSync(ws, alias);
  const { args } = bwrapOf(sandboxedCommand(['true'], workspaceOnly, alias, { mountProc: true }));
  expect(args.slice(7, 10)).toEqual(['--bind', ws, ws]);
  expect(args.slice(-4)).toEqual(['--chdir', ws, '--', 'true']);
});

test('a protected path behind a writable symlink cannot be enforced, so the command is refused', () => {
  mkdirSync(join(base, 'decoy'));
  symlinkSync(join(base, 'decoy'), join(ws, '.codex'));
  const policy: SandboxPolicy = { ...workspaceOnly, writableRoots: [base] };
  expect(() => sandboxedCommand(['true'], policy, ws, { mountProc: true })).toThrow(
    new SandboxSetupError(`cannot enforce sandbox read-only path ${join(ws, '.codex')} because it crosses writable symlink ${join(ws, '.codex')}`),
  );
});

test('where bwrap does not work, a sandboxed command is refused and not run', async () => {
  const runner = new CommandRunner({ bwrapPath: join(base, 'no-bwrap') });
  const marker = join(ws, 'ran');
  const result = await runner.run({ argv: ['touch', marker], cwd: ws, env: {}, policy: { type: 'read-only', networkAccess: false } });
  expect(result).toEqual({
    kind: 'refused',
    reason: 'sandboxUnavailable',
    message:
      `sandbox unavailable: ${join(base, 'no-bwrap')} cannot start a sandbox on this machine (spawn ${join(base, 'no-bwrap')} ENOENT); ` +
      'the command was not run, and is never run without the sandbox under read-only',
  });
  const unsandboxed = await runner.run({ argv: ['touch', marker], cwd: ws, env: {}, policy: { type: 'danger-full-access' } });
  expect(unsandboxed).toMatchObject({ kind: 'finished', exitCode: 0, sandboxed: false });
});
