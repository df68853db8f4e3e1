// Which writer-lock backend a host uses, and the lockfile backend's timing. Host-wide and fixed
// for the process's life: unlike other keys, a bad value here stops the host at startup (even
// from config.toml), because guessing a lock backend could give a thread two writers.
import { ConfigError, type ConfigDocument } from './config-document.js';

/** `flock` is the reference's protocol (codex can share the home); `lockfile` works on network homes. */
export type WriterLockBackendKind = 'flock' | 'lockfile';

/** The backend and, for `lockfile`, its heartbeat timing. */
export type WriterLockBackendConfig =
  | { kind: 'flock' }
  | { kind: 'lockfile'; staleMs: number; updateMs: number };

// proper-lockfile's own floors: it raises a smaller `stale` to 2 s and `update` to 1 s, so a
// smaller value here would be silently ignored; we refuse it instead.
export const MIN_LOCKFILE_STALE_MS = 2_000;
export const MIN_LOCKFILE_UPDATE_MS = 1_000;
// 30 s leaves a network home's attribute caches (NFS acregmax is 60 s at most, 3-30 s usually
// for files) and a busy host room; a heartbeat every 5 s misses five times before going stale.
export const DEFAULT_LOCKFILE_STALE_MS = 30_000;
export const DEFAULT_LOCKFILE_UPDATE_MS = 5_000;
// At least three heartbeats fit in the stale time, so one slow or failed heartbeat (retried
// after 1 s by proper-lockfile) never lets a live owner's lock look stale.
export const MIN_HEARTBEATS_PER_STALE = 3;

/** Validates the backend keys of a layered document; throws `ConfigError` naming the key. */
export function resolveLockBackendConfig(document: ConfigDocument): WriterLockBackendConfig {
  const kind = backendKind(document.writer_lock_backend);
  const staleMs = milliseconds(document, 'lockfile_stale_ms', MIN_LOCKFILE_STALE_MS) ?? DEFAULT_LOCKFILE_STALE_MS;
  const updateMs = milliseconds(document, 'lockfile_update_ms', MIN_LOCKFILE_UPDATE_MS) ?? DEFAULT_LOCKFILE_UPDATE_MS;
  if (updateMs * MIN_HEARTBEATS_PER_STALE > staleMs) {
    throw new ConfigError(
      `lockfile_update_ms: invalid value: integer \`${updateMs}\`, expected at most a third of lockfile_stale_ms (${staleMs})`,
    );
  }
  return kind === 'flock' ? { kind } : { kind, staleMs, updateMs };
}

function backendKind(value: unknown): WriterLockBackendKind {
  if (value === undefined) return 'flock';
  if (value === 'flock' || value === 'lockfile') return value;
  const shown = typeof value === 'string' ? `\`${value}\`` : 'a non-string value';
  throw ConfigError.at('writer_lock_backend', `unknown variant ${shown}, expected \`flock\` or \`lockfile\``);
}

/** The integer at `key` (milliseconds, at least `min`), or null when the document has none. */
export function milliseconds(document: ConfigDocument, key: string, min: number): number | null {
  const value = document[key];
  if (value === undefined) return null;
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new ConfigError(`${key}: invalid type: ${typeof value === 'string' ? `string ${JSON.stringify(value)}` : typeof value}, expected u64`);
  }
  if (n < min || n > Number.MAX_SAFE_INTEGER) {
    throw ConfigError.at(key, `invalid value: integer \`${value}\`, expected at least ${min} (milliseconds)`);
  }
  return n;
}
