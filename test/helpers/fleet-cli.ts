// `thread-host fleet …` as a user runs it: the built CLI, with a database as the host's configured one.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { CLI } from './server-process.js';

export interface FleetRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `thread-host fleet <args>` with `hostHome` as its home and `db` as its postgres_url. */
export function runFleet(db: PostgresConnection, hostHome: string, ...args: string[]): FleetRun {
  mkdirSync(hostHome, { recursive: true });
  const run = spawnSync(process.execPath, [CLI, 'fleet', ...args, '-c', `postgres_url=${JSON.stringify(db.url)}`], {
    encoding: 'utf8',
    env: { ...process.env, THREAD_HOST_HOME: hostHome },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
