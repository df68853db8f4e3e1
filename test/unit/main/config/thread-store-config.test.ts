import { describe, expect, test } from 'vitest';
import type { ConfigDocument } from '../../../../src/main/config/config-document.js';
import { resolveThreadStoreConfig, type ThreadStoreConfig } from '../../../../src/main/config/thread-store-config.js';
import type { ListenTarget } from '../../../../src/main/transport/listen-url.js';
import { configOrError, fromOverrides } from '../../../helpers/config-overrides.js';

const HOME = '/srv/host-a';
const WS: ListenTarget = { kind: 'ws', host: '127.0.0.1', port: 4500 };

function resolve(document: ConfigDocument, listen: ListenTarget = WS): { config: ThreadStoreConfig } | { error: string } {
  return configOrError(() => resolveThreadStoreConfig(document, { home: HOME, listen }));
}

describe('thread_store', () => {
  test('defaults to the files of the home', () => {
    expect(resolve({})).toEqual({ config: { kind: 'files' } });
  });

  test('postgres with the defaults: PG* variables, the --listen address, a 10 s lease renewed every 2.5 s', () => {
    expect(resolve(fromOverrides('thread_store=postgres'))).toEqual({
      config: { kind: 'postgres', connection: { url: null }, advertise: { kind: 'listener' }, secretFile: null, leaseMs: 10_000, renewMs: 2_500 },
    });
  });

  test('every key set, from -c', () => {
    expect(
      resolve(
        fromOverrides(
          'thread_store="postgres"',
          'postgres_url="postgresql://fleet@db.internal:5432/threads"',
          'fleet_advertise_url="ws://10.0.0.7:4500"',
          'fleet_secret_file="fleet.secret"',
          'fleet_lease_ms=3000',
          'fleet_renew_ms=1000',
        ),
      ),
    ).toEqual({
      config: {
        kind: 'postgres',
        connection: { url: 'postgresql://fleet@db.internal:5432/threads' },
        advertise: { kind: 'url', url: 'ws://10.0.0.7:4500' },
        secretFile: '/srv/host-a/fleet.secret',
        leaseMs: 3_000,
        renewMs: 1_000,
      },
    });
  });

  test('a short lease alone gets a renewal of a quarter of it', () => {
    expect(resolve({ thread_store: 'postgres', fleet_lease_ms: 1000n })).toMatchObject({ config: { leaseMs: 1_000, renewMs: 250 } });
  });

  test('a unix socket URL, which has no host part', () => {
    expect(resolve({ thread_store: 'postgres', postgres_url: 'postgresql://fleet@/threads?host=/run/postgresql' })).toMatchObject({
      config: { connection: { url: 'postgresql://fleet@/threads?host=/run/postgresql' } },
    });
  });

  test('no ws:// listener and no URL: nothing to advertise', () => {
    expect(resolve({ thread_store: 'postgres' }, { kind: 'stdio' })).toMatchObject({ config: { advertise: { kind: 'none' } } });
  });

  test('each bad value is refused, naming its key', () => {
    const cases: Array<[ConfigDocument, string, ListenTarget?]> = [
      [{ thread_store: 'sqlite' }, 'thread_store: unknown variant `sqlite`, expected `files` or `postgres`'],
      [{ thread_store: 1n }, 'thread_store: unknown variant a non-string value, expected `files` or `postgres`'],
      [{ postgres_url: 'mysql://root:hunter2@db/x' }, 'postgres_url: invalid value: scheme `mysql:`, expected `postgresql:` or `postgres:`'],
      [{ postgres_url: 'db.internal' }, 'postgres_url: invalid value: not a URL, expected `postgresql://USER@HOST:PORT/DATABASE`'],
      [{ postgres_url: 5n }, 'postgres_url: invalid type: bigint, expected a string'],
      [{ fleet_advertise_url: 'http://10.0.0.7:4500' }, 'fleet_advertise_url: invalid value "http://10.0.0.7:4500", expected a URL `ws://HOST:PORT` (or wss://) that peers reach this host at'],
      [{ fleet_advertise_url: 'ws://10.0.0.7:0' }, 'fleet_advertise_url: invalid value "ws://10.0.0.7:0", expected a URL `ws://HOST:PORT` (or wss://) that peers reach this host at'],
      [{}, 'fleet_advertise_url: required when --listen binds every address (0.0.0.0): set the URL peers reach this host at', { kind: 'ws', host: '0.0.0.0', port: 4500 }],
      [{ fleet_secret_file: '' }, 'fleet_secret_file: invalid value, expected a file path'],
      [{ fleet_lease_ms: 999n }, 'fleet_lease_ms: invalid value: integer `999`, expected at least 1000 (milliseconds)'],
      [{ fleet_lease_ms: '10s' }, 'fleet_lease_ms: invalid type: string "10s", expected u64'],
      [{ fleet_renew_ms: 99n }, 'fleet_renew_ms: invalid value: integer `99`, expected at least 100 (milliseconds)'],
      [{ fleet_lease_ms: 6000n, fleet_renew_ms: 2001n }, 'fleet_renew_ms: invalid value: integer `2001`, expected at most a third of fleet_lease_ms (6000)'],
    ];
    for (const [document, error, listen] of cases) expect(resolve({ thread_store: 'postgres', ...document }, listen)).toEqual({ error });
  });

  test('a files host listening on every address needs no advertised URL', () => {
    expect(resolve({}, { kind: 'ws', host: '0.0.0.0', port: 4500 })).toEqual({ config: { kind: 'files' } });
  });

  test("libpq's URI with a unix socket directory and no host is taken as it is", () => {
    const url = 'postgresql://fleet@/threads?host=%2Frun%2Fpostgresql';
    expect(resolve({ thread_store: 'postgres', postgres_url: url })).toMatchObject({ config: { connection: { url } } });
  });

  test('the fleet keys are checked even while the store is the files', () => {
    expect(resolve({ fleet_lease_ms: 10n })).toEqual({ error: 'fleet_lease_ms: invalid value: integer `10`, expected at least 1000 (milliseconds)' });
  });
});
