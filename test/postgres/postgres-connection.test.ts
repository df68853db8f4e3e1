// The pool's deadlines and error handling on a real PostgreSQL (and on a server that never answers).
import { createServer, type Server, type Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openPostgresPool, poolErrorCount, PostgresDeadlineError, queryWithin } from '../../src/common/postgres/postgres-connection.js';
import type { PostgresConnection } from '../../src/common/postgres/postgres-connection.js';
import { testDatabase } from '../helpers/test-database.js';

let db: PostgresConnection;
let pool: pg.Pool;

beforeAll(async () => {
  db = await testDatabase();
  pool = openPostgresPool(db, { max: 2, name: 'connection test' });
});
afterAll(async () => pool.end());

/** A TCP server on loopback that accepts connections and never says a word. */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, sockets };
}

describe('openPostgresPool', () => {
  test('names the host in application_name', async () => {
    const result = await queryWithin<{ name: string }>(pool, 5_000, `SELECT current_setting('application_name') AS name`, []);
    expect(result.rows).toEqual([{ name: 'thread-host connection test' }]);
  });

  test('a statement past its deadline fails with a deadline error, and the pool goes on', async () => {
    const failed = await queryWithin(pool, 200, `SELECT pg_sleep(3)`, []).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(PostgresDeadlineError);
    expect((failed as Error).message).toBe('postgres: a statement did not finish within 200 ms');
    expect((await queryWithin<{ one: number }>(pool, 5_000, `SELECT 1 AS one`, [])).rows).toEqual([{ one: 1 }]);
  });

  test('the server\'s own statement limit ends a statement as a deadline does', async () => {
    const limited = openPostgresPool(db, { max: 1, name: 'limited', statementTimeoutMs: 200 });
    try {
      const failed = await queryWithin(limited, 5_000, `SELECT pg_sleep(3)`, []).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(PostgresDeadlineError);
      expect((failed as Error).message).toBe("postgres: the server's statement_timeout ended a statement (its deadline was 5000 ms)");
      // The server answered, so its connection is kept and serves the next call.
      expect(limited.totalCount).toBe(1);
      expect((await queryWithin<{ one: number }>(limited, 5_000, `SELECT 1 AS one`, [])).rows).toEqual([{ one: 1 }]);
    } finally {
      await limited.end();
    }
  });

  test('a server that never answers: the call fails at its deadline', async () => {
    const silent = await silentServer();
    const stuck = openPostgresPool({ url: `postgresql://nobody@127.0.0.1:${silent.port}/none` }, { max: 1, name: 'stuck', connectMs: 60_000 });
    try {
      const started = performance.now();
      const failed = await queryWithin(stuck, 300, `SELECT 1`, []).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(PostgresDeadlineError);
      expect((failed as Error).message).toBe('postgres: waiting for a connection did not finish within 300 ms');
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      silent.sockets.forEach((socket) => socket.destroy());
      silent.server.close();
      await stuck.end().catch(() => undefined);
    }
  });

  test('a connection the server ends is logged and counted, not an unhandled error', async () => {
    const logged: string[] = [];
    const watched = openPostgresPool(db, { max: 1, name: 'watched', log: (level, message, fields) => logged.push(`${level} ${message} ${String(fields?.pool)}`) });
    try {
      const pid = (await queryWithin<{ pid: number }>(watched, 5_000, `SELECT pg_backend_pid() AS pid`, [])).rows[0]!.pid;
      await pool.query(`SELECT pg_terminate_backend($1)`, [pid]);
      for (let i = 0; i < 100 && poolErrorCount(watched) === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(poolErrorCount(watched)).toBe(1);
      expect(logged).toEqual(['warn postgres connection error watched']);
      // The pool replaces the connection it lost.
      expect((await queryWithin<{ one: number }>(watched, 5_000, `SELECT 1 AS one`, [])).rows).toEqual([{ one: 1 }]);
    } finally {
      await watched.end();
    }
  });
});
