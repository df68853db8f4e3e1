// Where a host keeps its threads: the files of its home (the default, as before), or a
// PostgreSQL database shared by a fleet of hosts, with the fleet's lease timing and how peers
// reach this host. Like the writer-lock backend, fixed for the process's life and fatal when
// wrong: a host that guessed its store could write a thread another host owns. Parsed and
// validated here only; the host acts on it.
import { isAbsolute, resolve } from 'node:path';
import type { PostgresConnection } from '../../common/postgres/postgres-connection.js';
import type { ListenTarget } from '../transport/listen-url.js';
import { ConfigError, type ConfigDocument } from './config-document.js';
import { milliseconds } from './lock-backend-config.js';

export type ThreadStoreConfig = { kind: 'files' } | PostgresStoreConfig;

export interface PostgresStoreConfig {
  kind: 'postgres';
  /** postgres_url, or null: libpq's PG* environment variables (PGHOST, PGDATABASE, …) alone. */
  connection: PostgresConnection;
  advertise: AdvertisedAddress;
  /** fleet_secret_file, made absolute against the home; null when not set. */
  secretFile: string | null;
  leaseMs: number;
  renewMs: number;
}

/**
 * How peers reach this host: the URL configured, the --listen ws:// listener's address once
 * bound (its port may be 0 until then), or nothing (no ws:// listener and no URL: requests
 * for this host's threads cannot be forwarded to it).
 */
export type AdvertisedAddress = { kind: 'url'; url: string } | { kind: 'listener' } | { kind: 'none' };

export const DEFAULT_FLEET_LEASE_MS = 10_000;
export const DEFAULT_FLEET_RENEW_MS = 2_500;
// A lease shorter than this lapses on an ordinary pause (a full GC, a busy database) and the
// threads change hands for nothing.
export const MIN_FLEET_LEASE_MS = 1_000;
export const MIN_FLEET_RENEW_MS = 100;
// At least three renewals fit in a lease, so one slow or failed renewal never lets it lapse.
export const MIN_RENEWALS_PER_LEASE = 3;

/** Validates the store keys of a layered document; throws `ConfigError` naming the key. */
export function resolveThreadStoreConfig(document: ConfigDocument, context: { home: string; listen: ListenTarget }): ThreadStoreConfig {
  const kind = storeKind(document.thread_store);
  const url = postgresUrl(document.postgres_url);
  const secretFile = pathIn(document, 'fleet_secret_file', context.home);
  const leaseMs = milliseconds(document, 'fleet_lease_ms', MIN_FLEET_LEASE_MS) ?? DEFAULT_FLEET_LEASE_MS;
  // Unset, the renewal keeps to the same share of a short lease as it does of the default one.
  const renewMs = milliseconds(document, 'fleet_renew_ms', MIN_FLEET_RENEW_MS) ?? Math.min(DEFAULT_FLEET_RENEW_MS, Math.floor(leaseMs / 4));
  if (renewMs * MIN_RENEWALS_PER_LEASE > leaseMs) {
    throw ConfigError.at('fleet_renew_ms', `invalid value: integer \`${renewMs}\`, expected at most a third of fleet_lease_ms (${leaseMs})`);
  }
  if (kind === 'files') return { kind };
  // Only a fleet's host is reached by peers: a files host may listen on every address without saying how.
  const advertise = advertisedAddress(document.fleet_advertise_url, context.listen);
  return { kind, connection: { url }, advertise, secretFile, leaseMs, renewMs };
}

function storeKind(value: unknown): 'files' | 'postgres' {
  if (value === undefined) return 'files';
  if (value === 'files' || value === 'postgres') return value;
  const shown = typeof value === 'string' ? `\`${value}\`` : 'a non-string value';
  throw ConfigError.at('thread_store', `unknown variant ${shown}, expected \`files\` or \`postgres\``);
}

function postgresUrl(value: unknown): string | null {
  if (value === undefined) return null;
  if (typeof value !== 'string') throw ConfigError.at('postgres_url', `invalid type: ${typeof value}, expected a string`);
  // Only the scheme is checked: libpq's URIs are not all WHATWG URLs (a unix socket's
  // `postgresql://user@/db?host=/run/postgresql` has an empty host), and pg parses the rest.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme === undefined) throw ConfigError.at('postgres_url', 'invalid value: not a URL, expected `postgresql://USER@HOST:PORT/DATABASE`');
  if (scheme !== 'postgresql' && scheme !== 'postgres') {
    // The value may hold a password: only its scheme is shown.
    throw ConfigError.at('postgres_url', `invalid value: scheme \`${scheme}:\`, expected \`postgresql:\` or \`postgres:\``);
  }
  return value;
}

function advertisedAddress(value: unknown, listen: ListenTarget): AdvertisedAddress {
  if (value !== undefined) {
    if (typeof value !== 'string') throw ConfigError.at('fleet_advertise_url', `invalid type: ${typeof value}, expected a string`);
    let parsed: URL | null = null;
    try {
      parsed = new URL(value);
    } catch {
      // reported below
    }
    if (parsed === null || (parsed.protocol !== 'ws:' && parsed.protocol !== 'wss:') || parsed.hostname === '' || parsed.port === '0') {
      throw ConfigError.at('fleet_advertise_url', `invalid value ${JSON.stringify(value)}, expected a URL \`ws://HOST:PORT\` (or wss://) that peers reach this host at`);
    }
    return { kind: 'url', url: value };
  }
  if (listen.kind !== 'ws') return { kind: 'none' };
  if (listen.host === '0.0.0.0' || listen.host === '::') {
    throw ConfigError.at('fleet_advertise_url', `required when --listen binds every address (${listen.host}): set the URL peers reach this host at`);
  }
  return { kind: 'listener' };
}

function pathIn(document: ConfigDocument, key: string, home: string): string | null {
  const value = document[key];
  if (value === undefined) return null;
  if (typeof value !== 'string' || value === '') throw ConfigError.at(key, `invalid value, expected a file path`);
  return isAbsolute(value) ? value : resolve(home, value);
}
