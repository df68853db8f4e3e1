// A throwaway PostgreSQL cluster: initdb into a temporary folder, started with pg_ctl on a unix
// socket in that folder and no TCP port at all, stopped and removed at the end. The tests run
// one per run (test/helpers/postgres-global-setup.ts), `thread-host fleet local` and the bench
// one each. PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres`
// user (Debian's package creates it) via runuser, and owns its folder. Synchronous: its callers
// start it once, before anything else runs.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The database superuser the tests connect as (trust authentication over the socket only). */
export const SUPERUSER = 'postgres';

export interface PostgresCluster {
  /** The folder holding the cluster's unix socket (and its data, below it). */
  socketDir: string;
  /** pg_ctl restart (fast: sessions are ended): every connection of every client breaks. */
  restart(): void;
  stop(): void;
}

/** initdb and pg_ctl: from PATH, else the newest of Debian's /usr/lib/postgresql/<version>/bin. */
export function postgresBinDir(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const dir = join(root, version, 'bin');
    if (existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error('PostgreSQL is not installed (no initdb on PATH nor under /usr/lib/postgresql/*/bin): install Debian\'s postgresql package (.ci/run does)');
}

/** Creates and starts a cluster. */
export function startPostgresCluster(): PostgresCluster {
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const socketDir = mkdtempSync(join(tmpdir(), 'thread-host-pg-'));
  const dataDir = join(socketDir, 'data');
  if (asRoot) {
    const ids = userIds(SUPERUSER);
    chownSync(socketDir, ids.uid, ids.gid);
    chmodSync(socketDir, 0o755);
  }
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', SUPERUSER, '--', join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.status !== 0) {
      throw new Error(`${tool} failed (exit ${result.status ?? result.signal}): ${result.error?.message ?? ''}${result.stdout}${result.stderr}`);
    }
  };
  // --no-sync: the cluster is thrown away; its commits still flush the WAL (synchronous_commit
  // and fsync stay on), so timings taken on it are those of a durable database.
  const options = `-c listen_addresses='' -k ${socketDir} -c max_connections=200 -c shared_buffers=32MB`;
  try {
    run('initdb', ['-D', dataDir, '-A', 'trust', '-U', SUPERUSER, '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    run('pg_ctl', ['-D', dataDir, '-w', '-s', '-t', '30', '-l', join(socketDir, 'server.log'), '-o', options, 'start']);
  } catch (error) {
    // A cluster that did not start leaves no folder behind.
    rmSync(socketDir, { recursive: true, force: true });
    throw error;
  }
  return {
    socketDir,
    restart() {
      run('pg_ctl', ['-D', dataDir, '-w', '-s', '-t', '30', '-m', 'fast', '-l', join(socketDir, 'server.log'), '-o', options, 'restart']);
    },
    stop() {
      try {
        run('pg_ctl', ['-D', dataDir, '-w', '-s', '-m', 'immediate', 'stop']);
      } finally {
        rmSync(socketDir, { recursive: true, force: true });
      }
    },
  };
}

function userIds(name: string): { uid: number; gid: number } {
  const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) throw new Error(`no \`${name}\` user to run PostgreSQL as (install Debian's postgresql package)`);
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A connection string for `database` on the cluster whose socket is in `socketDir`. */
export function clusterUrl(database: string, socketDir: string): string {
  return `postgresql://${SUPERUSER}@/${database}?host=${encodeURIComponent(socketDir)}`;
}
