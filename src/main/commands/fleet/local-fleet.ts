// `thread-host fleet local`: a fleet to try on one machine. A throwaway PostgreSQL cluster
// (throwaway-cluster.ts), its schema migrated once before any host starts (so N hosts do not
// race to migrate), then N hosts, each `app-server --listen ws://127.0.0.1:0` in a home of its
// own with thread_store = "postgres" and the embedded model. Ctrl-C (or SIGTERM) stops the
// hosts, stops the cluster and removes every folder it made.
//
// The hosts run in process groups of their own: a terminal's Ctrl-C reaches this process only,
// which stops them in order (hosts first, while the database still answers their last writes).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateSchema } from '../../../common/postgres/schema-migrations.js';
import { StartupError } from '../../startup-error.js';
import { UsageError } from '../../usage-error.js';
import { clusterUrl, startPostgresCluster, type PostgresCluster } from './throwaway-cluster.js';

const LOCAL_FLEET_USAGE = `Usage: thread-host fleet local [--hosts N]

Start a fleet on this machine: a throwaway PostgreSQL database (initdb in a temporary folder)
and N hosts (default 3) serving WebSocket on 127.0.0.1, all on that database, answering with
the embedded model. Any host serves any thread; one host writes a thread at a time.
Ctrl-C stops the hosts and removes the database.

Options:
  --hosts <n>   How many hosts (1-16, default 3)
  -h, --help    Show this help`;

const MAX_HOSTS = 16;
const BANNER = /listening on: (ws:\/\/\S+)/;
const HOST_START_DEADLINE_MS = 30_000;
const HOST_STOP_DEADLINE_MS = 10_000;

export interface LocalHost {
  url: string;
  pid: number;
  home: string;
  child: ChildProcess;
  /** Set once this command stops it: its exit is then expected, not reported. */
  stopping: boolean;
}

export async function runLocalFleetCommand(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { hosts: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.help) {
    process.stdout.write(`${LOCAL_FLEET_USAGE}\n`);
    return 0;
  }
  const count = Number(parsed.hosts ?? 3);
  if (!Number.isInteger(count) || count < 1 || count > MAX_HOSTS) throw new UsageError(`--hosts: expected an integer from 1 to ${MAX_HOSTS}, got '${parsed.hosts}'`);

  const cluster = startPostgresCluster();
  const hosts: LocalHost[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(hosts.map(stopHost));
    stopCluster(cluster);
  };
  try {
    const url = clusterUrl('postgres', cluster.socketDir);
    await migrateSchema({ url });
    for (let index = 0; index < count; index += 1) hosts.push(await startHost(index + 1, url));
  } catch (error) {
    await stop();
    throw error instanceof StartupError ? error : new StartupError(`fleet local: ${(error as Error).message}`);
  }
  process.stdout.write(banner(hosts, cluster));
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stdout.write(`${signal}: stopping ${hosts.length} hosts and removing the database\n`);
  await stop();
  process.stdout.write('fleet stopped\n');
  return 0;
}

function banner(hosts: LocalHost[], cluster: PostgresCluster): string {
  return [
    `fleet: ${hosts.length} host${hosts.length === 1 ? '' : 's'} on one PostgreSQL database`,
    ...hosts.map((host, index) => `  host ${index + 1}: ${host.url}  (pid ${host.pid}, home ${host.home})`),
    `  database: ${clusterUrl('postgres', cluster.socketDir)}  (cluster in ${cluster.socketDir})`,
    '',
    'Connect a client to any host, e.g.:',
    `  codex --remote ${hosts[0]!.url}`,
    'A thread started on one host is read and listed by every host; another host takes it over',
    'once its writer unloads it (or stops). Ctrl-C stops the hosts and removes the database.',
    '',
  ].join('\n');
}

/** Starts host `number` on `postgresUrl` in a home of its own; resolves once it listens. */
async function startHost(number: number, postgresUrl: string): Promise<LocalHost> {
  const home = mkdtempSync(join(tmpdir(), `thread-host-fleet-${number}-`));
  const argv = [...process.execArgv, process.argv[1]!, 'app-server', '--listen', 'ws://127.0.0.1:0', '-c', 'thread_store="postgres"', '-c', `postgres_url=${JSON.stringify(postgresUrl)}`];
  const child = spawn(process.execPath, argv, {
    cwd: home,
    env: { ...process.env, THREAD_HOST_HOME: home, CODEX_HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const host: LocalHost = { url: '', pid: child.pid ?? 0, home, child, stopping: false };
  let seen = '';
  try {
    host.url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new StartupError(`fleet local: host ${number} did not listen within ${HOST_START_DEADLINE_MS} ms:\n${seen}`)), HOST_START_DEADLINE_MS);
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const url = BANNER.exec(seen)?.[1];
        if (url !== undefined) {
          clearTimeout(timer);
          resolve(url);
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new StartupError(`fleet local: host ${number} exited (${code ?? signal}) before listening:\n${seen}`));
      });
    });
  } catch (error) {
    await stopHost(host);
    throw error;
  }
  // From now on its log lines go to this terminal, named by host.
  child.stderr!.removeAllListeners('data');
  child.stderr!.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line !== '') process.stderr.write(`[host ${number}] ${line}\n`);
  });
  child.once('exit', (code, signal) => {
    if (!host.stopping) process.stderr.write(`[host ${number}] exited (${code ?? signal})\n`);
  });
  return host;
}

/** SIGTERM (a graceful stop), SIGKILL after the deadline; then its home goes. */
async function stopHost(host: LocalHost): Promise<void> {
  const { child } = host;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    host.stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), HOST_STOP_DEADLINE_MS);
    await exited;
    clearTimeout(timer);
  }
  rmSync(host.home, { recursive: true, force: true });
}

function stopCluster(cluster: PostgresCluster): void {
  try {
    cluster.stop();
  } catch (error) {
    process.stderr.write(`fleet local: stopping the database: ${(error as Error).message}\n`);
  }
}
