// Start-up of the socket transports, as the reference starts: `--listen` values it refuses
// (exit 2), start-up errors printed as `Error: …` (exit 1): auth flag combinations, a
// non-loopback address without auth, a busy port, `off` with nothing else to serve.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { CLI } from '../helpers/server-process.js';

const home = mkdtempSync(join(tmpdir(), 'thread-host-cli-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
writeFileSync(join(home, 'token'), '  tok-ABC_123 \n\n');
writeFileSync(join(home, 'short-secret'), 'too short\n');
writeFileSync(join(home, 'empty'), ' \n');

const run = (...args: string[]) => {
  const result = spawnSync(process.execPath, [CLI, 'app-server', ...args], {
    cwd: home,
    env: { ...process.env, CODEX_HOME: home, THREAD_HOST_HOME: home },
    encoding: 'utf8',
    timeout: 20_000,
    input: '',
  });
  return [result.status, result.stderr];
};
const startupError = (message: string) => [1, `Error: ${message}\n`];
const usageError = (message: string) => [2, `thread-host: ${message}\nRun 'thread-host --help' for usage.\n`];
const BOTH_MODES = '`--ws-auth capability-token` or `--ws-auth signed-bearer-token`';

test('--listen values the reference refuses exit 2 with its texts', () => {
  expect(run('--listen', 'ws://localhost:47820')).toEqual(
    usageError("invalid value 'ws://localhost:47820' for '--listen <URL>': invalid websocket --listen URL `ws://localhost:47820`; expected `ws://IP:PORT`"),
  );
  expect(run('--listen', 'ws://127.0.0.1:99999')[1]).toContain('invalid websocket --listen URL `ws://127.0.0.1:99999`');
  expect(run('--listen', 'ws://127.0.0.1')[1]).toContain('invalid websocket --listen URL `ws://127.0.0.1`');
  expect(run('--listen', 'stdio')[1]).toContain('unsupported --listen URL `stdio`');
  expect(run('--listen', 'stdio://', '--listen', 'stdio://')).toEqual(usageError("the argument '--listen <URL>' cannot be used multiple times"));
  expect(run('--stdio', '--listen', 'ws://127.0.0.1:0')).toEqual(usageError("the argument '--stdio' cannot be used with '--listen <URL>'"));
  expect(run('--listen', 'ws://127.0.0.1:0', '--ws-auth', 'bogus')).toEqual(
    usageError("invalid value 'bogus' for '--ws-auth <MODE>'\n  [possible values: capability-token, signed-bearer-token]"),
  );
});

test('a non-loopback listener without auth is refused before binding, exit 1', () => {
  const refusal = (address: string) =>
    startupError(`refusing to start non-loopback websocket listener ${address} without auth; configure ${BOTH_MODES}`);
  expect(run('--listen', 'ws://0.0.0.0:47830')).toEqual(refusal('0.0.0.0:47830'));
  expect(run('--listen', 'ws://[::]:47831')).toEqual(refusal('[::]:47831'));
  expect(run('--listen', 'off')).toEqual(startupError('no transport configured; use --listen or enable remote control'));
});

test('auth flag combinations and unusable secrets stop the start with the reference texts', () => {
  const ws = ['--listen', 'ws://127.0.0.1:0'];
  expect(run(...ws, '--ws-token-file', 'token')).toEqual(startupError(`websocket auth flags require ${BOTH_MODES}`));
  expect(run(...ws, '--ws-auth', 'capability-token')).toEqual(
    startupError('`--ws-token-file` or `--ws-token-sha256` is required when `--ws-auth capability-token` is set'),
  );
  expect(run(...ws, '--ws-auth', 'capability-token', '--ws-token-file', 'token', '--ws-token-sha256', 'a'.repeat(64))).toEqual(
    startupError('`--ws-token-file` and `--ws-token-sha256` are mutually exclusive'),
  );
  expect(run(...ws, '--ws-auth', 'capability-token', '--ws-token-sha256', 'abc')).toEqual(
    startupError('--ws-token-sha256 must be a 64-character hex SHA-256 digest'),
  );
  expect(run(...ws, '--ws-auth', 'capability-token', '--ws-token-file', 'token', '--ws-issuer', 'me')).toEqual(
    startupError(
      '`--ws-shared-secret-file`, `--ws-issuer`, `--ws-audience`, and `--ws-max-clock-skew-seconds` require `--ws-auth signed-bearer-token`',
    ),
  );
  expect(run(...ws, '--ws-auth', 'signed-bearer-token')).toEqual(
    startupError('`--ws-shared-secret-file` is required when `--ws-auth signed-bearer-token` is set'),
  );
  expect(run(...ws, '--ws-auth', 'signed-bearer-token', '--ws-shared-secret-file', 'short-secret', '--ws-token-file', 'token')).toEqual(
    startupError('`--ws-token-file` and `--ws-token-sha256` require `--ws-auth capability-token`, not `signed-bearer-token`'),
  );
  expect(run(...ws, '--ws-auth', 'signed-bearer-token', '--ws-shared-secret-file', 'short-secret')).toEqual(
    startupError(`signed websocket bearer secret ${join(home, 'short-secret')} must be at least 32 bytes`),
  );
  expect(run(...ws, '--ws-auth', 'capability-token', '--ws-token-file', 'empty')).toEqual(
    startupError(`websocket auth secret ${join(home, 'empty')} must not be empty`),
  );
  expect(run(...ws, '--ws-auth', 'capability-token', '--ws-token-file', '/nonexistent/tok')).toEqual(
    startupError('failed to read websocket auth secret /nonexistent/tok: No such file or directory (os error 2)'),
  );
});

test('a busy port stops the start with the OS error', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as { port: number };
  try {
    expect(run('--listen', `ws://127.0.0.1:${port}`)).toEqual(startupError('Address in use (os error 98)'));
  } finally {
    holder.close();
  }
});
