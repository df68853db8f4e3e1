// Escape attempts against the real bubblewrap sandbox, one workspace per test. The workspace
// is the only writable root (/tmp and $TMPDIR excluded), so the temp folder beside it is
// "outside" for every attempt.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest';
import { CommandRunner, type CommandResult } from '../../../../../src/main/tools/exec/command-runner.js';
import type { SandboxPolicy } from '../../../../../src/main/tools/exec/sandbox-policy.js';

const WORKSPACE_WRITE: SandboxPolicy = { type: 'workspace-write', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true };
const READ_ONLY: SandboxPolicy = { type: 'read-only', networkAccess: false };
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const runner = new CommandRunner();
let base: string;
let ws: string;
let outside: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'exec-escape-'));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));
afterAll(() => runner.killAll());

async function bash(script: string, policy: SandboxPolicy = WORKSPACE_WRITE): Promise<CommandResult> {
  const result = await runner.run({ argv: ['bash', '-c', script], cwd: ws, env, policy, timeoutMs: 5_000 });
  if (result.kind !== 'finished') throw new Error(`refused: ${result.message}`);
  return result;
}

const denied = (path: string) => ({ exitCode: 1, sandboxed: true, aggregatedOutput: `bash: line 1: ${path}: Read-only file system\n` });

test('writes inside the workspace succeed', async () => {
  expect(await bash('echo ok > made && cat made')).toMatchObject({ exitCode: 0, sandboxed: true, aggregatedOutput: 'ok\n' });
  expect(readFileSync(join(ws, 'made'), 'utf8')).toBe('ok\n');
});

test('a write outside the writable roots fails', async () => {
  expect(await bash(`echo x > ${outside}/f`)).toMatchObject(denied(`${outside}/f`));
  expect(readdirSync(outside)).toEqual([]);
});

test('a write through a symlink in the workspace that points outside fails', async () => {
  symlinkSync(outside, join(ws, 'link'));
  expect(await bash('echo x > link/f')).toMatchObject(denied('link/f'));
  expect(readdirSync(outside)).toEqual([]);
});

test('a ../ path out of the workspace fails', async () => {
  expect(await bash('echo x > ../outside/f')).toMatchObject(denied('../outside/f'));
  expect(readdirSync(outside)).toEqual([]);
});

test('.git stays read-only, and .codex cannot be created (nor is it left behind)', async () => {
  expect(await bash('echo x > .git/config')).toMatchObject(denied('.git/config'));
  expect(await bash('echo x > .git/hooks-pre-commit')).toMatchObject(denied('.git/hooks-pre-commit'));
  expect(await bash('echo x > .codex/config.toml')).toMatchObject(denied('.codex/config.toml'));
  expect(readFileSync(join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
  expect(existsSync(join(ws, '.codex'))).toBe(false);
});

test('with the network off, a TCP server on the host loopback cannot be reached', async () => {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const script = `echo hi > /dev/tcp/127.0.0.1/${port}; echo "network=$CODEX_SANDBOX_NETWORK_DISABLED"`;
    expect(await bash(script)).toMatchObject({
      exitCode: 0,
      aggregatedOutput: `network=1\nbash: connect: Connection refused\nbash: line 1: /dev/tcp/127.0.0.1/${port}: Connection refused\n`,
    });
    expect(connections).toBe(0);
    // The same attempt with full access reaches the server: the refusal above is the sandbox's.
    expect(await bash(`echo hi > /dev/tcp/127.0.0.1/${port}`, { type: 'danger-full-access' })).toMatchObject({ exitCode: 0, sandboxed: false });
    expect(connections).toBe(1);
  } finally {
    server.close();
  }
});

test('a detached child (setsid nohup ... &) does not outlive the sandboxed command', async () => {
  const marker = `100.${process.pid}`;
  expect(await bash(`setsid nohup sleep ${marker} >/dev/null 2>&1 & echo spawned`)).toMatchObject({ exitCode: 0, aggregatedOutput: 'spawned\n' });
  expect(await survivorsOf(marker)).toEqual([]);
});

test('output flooding inside the sandbox is capped and ended by the deadline', async () => {
  const result = await runner.run({ argv: ['yes'], cwd: ws, env, policy: WORKSPACE_WRITE, timeoutMs: 1_000 });
  expect(result).toMatchObject({ kind: 'finished', ending: 'timedOut', exitCode: 124, sandboxed: true });
  if (result.kind === 'finished') expect(result.stdout.length).toBe(1024 * 1024);
  expect(await survivorsOf('yes')).toEqual([]);
});

test('read-only refuses every write, the workspace and /tmp included', async () => {
  expect(await bash('echo x > made', READ_ONLY)).toMatchObject(denied('made'));
  expect(await bash(`echo x > ${tmpdir()}/exec-escape-ro-${process.pid}`, READ_ONLY)).toMatchObject(denied(`${tmpdir()}/exec-escape-ro-${process.pid}`));
  expect(readdirSync(ws)).toEqual(['.git']);
});

test('danger-full-access writes anywhere, unsandboxed', async () => {
  expect(await bash(`echo x > ${outside}/f && echo x > .git/config`, { type: 'danger-full-access' })).toMatchObject({ exitCode: 0, sandboxed: false });
  expect(readdirSync(outside)).toEqual(['f']);
});

/** Processes whose command line mentions `marker`, after giving a dying namespace a moment. */
async function survivorsOf(marker: string): Promise<string[]> {
  const deadline = Date.now() + 1_000;
  for (;;) {
    const found = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
        } catch {
          return [];
        }
      })
      .filter((argv) => argv[0] !== undefined && argv.some((arg) => arg === marker) && !argv.includes('vitest'))
      .map((argv) => argv.join(' '));
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
