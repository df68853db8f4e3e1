// `--listen unix://[PATH]`: WebSocket over a unix socket laid out as the reference lays it out
// (the requested path a symlink to a 0600 socket in /tmp/codex-daemon-<uid>, its directory
// 0700), a stale socket replaced, a live one refused, and both files removed on SIGTERM.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { CLI } from '../helpers/server-process.js';
import { WsServer } from '../helpers/ws-server.js';

const startFails = (home: string, listen: string) => {
  const result = spawnSync(process.execPath, [CLI, 'app-server', '--listen', listen], {
    cwd: home,
    env: { ...process.env, CODEX_HOME: home, THREAD_HOST_HOME: home },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return [result.status, result.stderr];
};

test('unix:// listens at the default control socket with the reference layout and permissions, and cleans up on SIGTERM', async () => {
  const server = await WsServer.start({ listen: 'unix://' });
  const requested = join(server.home, 'app-server-control', 'app-server-control.sock');
  const target = join(`/tmp/codex-daemon-${process.getuid!()}`, createHash('sha256').update(join(realpathSync(server.home), 'app-server-control', 'app-server-control.sock')).digest('hex'));
  expect(server.baseUrl).toBe(`ws+unix:${target}`);
  expect(lstatSync(requested).isSymbolicLink()).toBe(true);
  expect(readlinkSync(requested)).toBe(target);
  const socket = statSync(requested);
  expect([socket.isSocket(), socket.mode & 0o777]).toEqual([true, 0o600]);
  expect(statSync(join(server.home, 'app-server-control')).mode & 0o777).toBe(0o700);

  const [a, b] = [await server.connect({ path: '/any/path' }), await server.connect()];
  const { thread } = await a.request('thread/start', {});
  expect(await b.waitForNotification('thread/started')).toMatchObject({ thread: { id: thread.id } });
  await a.disconnect('terminate');
  expect(await b.request('thread/loaded/list', {})).toEqual({ data: [thread.id], nextCursor: null });

  expect(startFails(server.home, 'unix://')).toEqual([1, `Error: app-server control socket is already in use at ${requested}\n`]);
  expect(await server.stop()).toBe(0);
  expect([existsSync(requested), existsSync(target)]).toEqual([false, false]);
});

test('unix://PATH: relative to the working directory; a stale socket is replaced, a regular file refused', async () => {
  const first = await WsServer.start({ listen: 'unix://sockets/my.sock' });
  const requested = join(first.home, 'sockets', 'my.sock');
  expect(lstatSync(requested).isSymbolicLink()).toBe(true);
  // SIGKILL leaves the link and the socket behind.
  expect(await first.process.kill('SIGKILL')).toBe(null);
  expect(lstatSync(requested).isSymbolicLink()).toBe(true);
  const second = await WsServer.start({ listen: 'unix://sockets/my.sock', home: first.home, keepConfig: true });
  const client = await second.connect();
  expect(await client.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
  expect(await second.stop()).toBe(0);

  mkdirSync(join(first.home, 'plain'));
  writeFileSync(join(first.home, 'plain', 'file.sock'), 'not a socket');
  expect(startFails(first.home, 'unix://plain/file.sock')).toEqual([
    1,
    `Error: app-server control socket path exists and is not a socket: ${join(first.home, 'plain', 'file.sock')}\n`,
  ]);
  await first.process.reap(1_000);
});
