// `thread-host fleet local`, as a user runs it: the real CLI starts a throwaway PostgreSQL
// cluster and two hosts on it, prints where they listen; a turn runs through one host and is
// read through the other; Ctrl-C (SIGINT) stops the hosts, the database, and removes every
// folder the command made.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { expect, onTestFinished, test } from 'vitest';
import { WebSocketTransport } from '../../src/client/websocket-transport.js';
import { CheckedConnection, type Message } from '../helpers/checked-connection.js';
import { runTurn } from '../helpers/fleet-hosts.js';
import { CLI } from '../helpers/server-process.js';

const HOST_LINE = /^ {2}host (\d+): (ws:\/\/127\.0\.0\.1:\d+) {2}\(pid (\d+), home (\S+)\)$/;
const CLUSTER_LINE = /\(cluster in (\S+)\)$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function client(url: string): Promise<CheckedConnection> {
  const connection = new CheckedConnection(await WebSocketTransport.open(url), () => '');
  await connection.initialize();
  return connection;
}

test('fleet local starts hosts on a throwaway database, serves a thread across them and removes everything at SIGINT', async () => {
  const child = spawn(process.execPath, [CLI, 'fleet', 'local', '--hosts', '2'], { stdio: ['ignore', 'pipe', 'pipe'] });
  onTestFinished(() => void child.kill('SIGINT'));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner; stdout: ${stdout}; stderr: ${stderr}`)), 40_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops the hosts')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const lines = stdout.split('\n');
  const hosts = lines.flatMap((line) => {
    const match = HOST_LINE.exec(line);
    return match === null ? [] : [{ url: match[2]!, pid: Number(match[3]), home: match[4]! }];
  });
  const clusterDir = lines.map((line) => CLUSTER_LINE.exec(line)?.[1]).find((dir) => dir !== undefined)!;
  expect(hosts.map((host) => [alive(host.pid), existsSync(host.home)])).toEqual([
    [true, true],
    [true, true],
  ]);
  expect(existsSync(clusterDir)).toBe(true);
  expect(lines).toContain(`  codex --remote ${hosts[0]!.url}`);

  const [first, second] = await Promise.all(hosts.map((host) => client(host.url)));
  const { thread } = await first!.request('thread/start', {});
  const done = await runTurn(first!, thread.id, 'hello fleet');
  expect(done.turn.status).toBe('completed');
  const fromFirst = (await first!.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
  const fromSecond = (await second!.request('thread/read', { threadId: thread.id, includeTurns: true })).thread;
  const summary = (read: Message) => (read.turns as Message[]).map((turn) => [turn.id, turn.status, (turn.items as Message[]).map((item) => item.type)]);
  expect(summary(fromSecond)).toEqual(summary(fromFirst));
  expect([fromSecond.preview, fromSecond.status]).toEqual(['hello fleet', { type: 'notLoaded' }]);
  expect([...first!.schemaProblems, ...second!.schemaProblems]).toEqual([]);

  child.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(stdout.split('\n').slice(-3)).toEqual(['SIGINT: stopping 2 hosts and removing the database', 'fleet stopped', '']);
  expect([...hosts.map((host) => [alive(host.pid), existsSync(host.home)]), existsSync(clusterDir)]).toEqual([[false, false], [false, false], false]);
}, 60_000);

test('fleet refuses an unknown subcommand and a host count out of range, with exit code 2, starting nothing', () => {
  const run = (args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const usage = "Run 'thread-host --help' for usage.\n";
  expect(run(['fleet', 'remote'])).toEqual({ code: 2, stdout: '', stderr: `thread-host: unknown fleet command 'remote'\n${usage}` });
  expect(run(['fleet', 'local', '--hosts', '17'])).toEqual({ code: 2, stdout: '', stderr: `thread-host: --hosts: expected an integer from 1 to 16, got '17'\n${usage}` });
});
