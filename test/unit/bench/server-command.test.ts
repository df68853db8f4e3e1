// --server-cmd / --compare: a JSON argv array or a shell-like string, split without a shell.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { defaultServerCommand, distinctNames, parseServerCommand } from '../../../bench/lib/server-command.js';

const REPO = join(import.meta.dirname, '..', '..', '..');

describe('a shell-like string', () => {
  test('splits on whitespace and names a native binary by its file name', () => {
    expect(parseServerCommand('  /opt/codex/bin/codex   app-server --listen stdio://  ')).toEqual({
      name: 'codex',
      argv: ['/opt/codex/bin/codex', 'app-server', '--listen', 'stdio://'],
      env: {},
    });
  });

  test('honours single quotes literally and double quotes with their four escapes', () => {
    expect(parseServerCommand(`srv 'a b\\n' "c \\"d\\" \\\\ \\$x \\q" e\\ f ''`).argv).toEqual(['srv', 'a b\\n', 'c "d" \\ $x \\q', 'e f', '']);
  });

  test('turns leading NAME=value words into environment, and only leading ones', () => {
    expect(parseServerCommand('RUST_LOG=debug TOKIO_WORKER_THREADS=4 codex app-server X=1')).toEqual({
      name: 'codex',
      argv: ['codex', 'app-server', 'X=1'],
      env: { RUST_LOG: 'debug', TOKIO_WORKER_THREADS: '4' },
    });
  });

  test('refuses an unterminated quote and a command that runs nothing', () => {
    expect(() => parseServerCommand('codex "app-server')).toThrow('server command: unterminated " in "codex \\"app-server"');
    expect(() => parseServerCommand('A=1 B=2')).toThrow('server command: nothing to run in "A=1 B=2"');
  });

  test('anchors a relative path that exists to the bench cwd (the server runs in its temp home)', () => {
    const previous = process.cwd();
    process.chdir(REPO);
    try {
      expect(parseServerCommand('node test/fixtures/schema/SOURCE.md x').argv).toEqual(['node', join(REPO, 'test/fixtures/schema/SOURCE.md'), 'x']);
      expect(parseServerCommand('node no/such/file.js').argv).toEqual(['node', 'no/such/file.js']);
    } finally {
      process.chdir(previous);
    }
  });
});

describe('a JSON argv array', () => {
  test('is taken word for word, quotes and spaces included', () => {
    expect(parseServerCommand('["/bin/my server", "--flag=\'x y\'"]')).toEqual({ name: 'my server', argv: ['/bin/my server', "--flag='x y'"], env: {} });
  });

  test('must hold strings only', () => {
    expect(() => parseServerCommand('["codex", 1]')).toThrow('server command: expected a JSON array of strings, got ["codex", 1]');
  });
});

test('node running a cli.js is thread-host; other scripts are named by their file', () => {
  expect(parseServerCommand(`${process.execPath} /x/dist/src/main/cli.js app-server`).name).toBe('thread-host');
  expect(parseServerCommand('node other-server.mjs').name).toBe('other-server.mjs');
  expect(defaultServerCommand()).toEqual({
    name: 'thread-host',
    argv: [process.execPath, join(REPO, 'dist', 'bundle', 'cli.js'), 'app-server', '--listen', 'stdio://'],
    env: {},
  });
});

test('two servers with the same name get distinct report names', () => {
  const a = parseServerCommand('codex app-server');
  expect(distinctNames([a, a, parseServerCommand('other')]).map((s) => s.name)).toEqual(['codex', 'codex#2', 'other']);
});
