// What the process reads once at start: config.toml with the command line's `-c` overrides,
// and the host-wide settings taken from it. Like the reference, a bad `-c` value stops the
// process at once, while a bad value in config.toml lets it start and surfaces on thread/start.
import { join } from 'node:path';
import type { LogFn } from '../../common/log.js';
import type { ConfigLayers } from '../config/config-layers.js';
import { ConfigError, mergedOver, parseOverride, readConfigFile, withValueAt, type ConfigDocument } from '../config/config-document.js';
import {
  DEFAULT_CONNECTION_LIMITS,
  resolveConnectionLimits,
  resolveHostConfig,
  resolveMaxLoadedThreads,
  resolveToolCallGraceMs,
  type ConnectionLimits,
} from '../config/host-config.js';
import { resolveCodexHistoryDatabase } from '../config/codex-history-config.js';
import { resolveLockBackendConfig, type WriterLockBackendConfig } from '../config/lock-backend-config.js';
import { resolveThreadStoreConfig, type ThreadStoreConfig } from '../config/thread-store-config.js';
import type { ListenTarget } from '../transport/listen-url.js';

// How long an unload waits for the actor to flush and close its rollout before finishing
// from the main thread anyway.
const DEFAULT_ACTOR_CLOSE_TIMEOUT_MS = 2_000;

/** Host-wide settings, fixed for the process's life. */
export interface StartupConfig {
  /** config.toml with `-c` overrides applied; validated again per thread. */
  document: ConfigDocument;
  /** What `document` was layered from, as config/read reports it. */
  layers: ConfigLayers;
  /** `writer_lock_timeout_ms`, when the configuration is valid. */
  lockTimeoutMs: number | undefined;
  /** Per-connection limits; the defaults when the configuration is invalid. */
  limits: ConnectionLimits;
  actorCloseTimeoutMs: number;
  /** `tool_call_grace_ms`: a disconnected client's pending requests wait this long for a resume. */
  toolCallGraceMs: number;
  /** `max_loaded_threads` when set; null lets the open-file limit decide. */
  maxLoadedThreads: number | null;
  /** The writer-lock backend; always valid (a bad value stops the host at startup). */
  lockBackend: WriterLockBackendConfig;
  /** The reference's history database the pool workers keep current; null when that is off. */
  codexHistoryDatabase: string | null;
  /** Where threads are kept: the home's files, or a PostgreSQL database shared by a fleet (fatal when wrong). */
  threadStore: ThreadStoreConfig;
}

/** Reads config.toml plus `-c` overrides; throws ConfigError for a malformed file or override. */
export function loadConfigDocument(home: string, overrides: string[]): ConfigDocument {
  return loadConfigLayers(home, overrides).document;
}

/** config.toml and the `-c` overrides, each on its own and layered into one document. */
function loadConfigLayers(home: string, overrides: string[]): ConfigLayers & { document: ConfigDocument } {
  const user = readConfigFile(home);
  let flags: ConfigDocument | null = overrides.length > 0 ? {} : null;
  for (const { path, value } of overrides.map(parseOverride)) flags = withValueAt(flags!, path, value);
  return { userFile: join(home, 'config.toml'), user, flags, document: flags === null ? user : mergedOver(user, flags) };
}

/** Throws ConfigError when a `-c` override makes a valid config.toml invalid. */
export function readStartupConfig(home: string, overrides: string[], env: NodeJS.ProcessEnv, log: LogFn, listen: ListenTarget = { kind: 'stdio' }): StartupConfig {
  const { document, ...layers } = loadConfigLayers(home, overrides);
  // Fatal wherever the bad value comes from: the store and the backend cannot be guessed safely.
  const threadStore = resolveThreadStoreConfig(document, { home, listen });
  if (threadStore.kind === 'postgres' && document.writer_lock_backend !== undefined) {
    throw new ConfigError('writer_lock_backend: applies to the files thread store only; with thread_store = "postgres" the database owns the threads');
  }
  const lockBackend = resolveLockBackendConfig(document);
  // The reference's history database projects rollouts of this home, which a fleet does not write.
  const codexHistoryDatabase = threadStore.kind === 'postgres' ? null : resolveCodexHistoryDatabase(document, home, env, lockBackend);
  let lockTimeoutMs: number | undefined;
  let limits = DEFAULT_CONNECTION_LIMITS;
  let maxLoadedThreads: number | null = null;
  let toolCallGraceMs = resolveToolCallGraceMs({});
  try {
    lockTimeoutMs = resolveHostConfig(document).writerLockTimeoutMs;
    limits = resolveConnectionLimits(document);
    maxLoadedThreads = resolveMaxLoadedThreads(document);
    toolCallGraceMs = resolveToolCallGraceMs(document);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (overrides.length > 0 && fileIsValid(home)) throw error;
    log('error', 'invalid configuration; thread/start will report it', { error: error.message });
  }
  const actorCloseTimeoutMs = Number(env.THREAD_HOST_ACTOR_CLOSE_TIMEOUT_MS) || DEFAULT_ACTOR_CLOSE_TIMEOUT_MS;
  return { document, layers, lockTimeoutMs, limits, actorCloseTimeoutMs, toolCallGraceMs, maxLoadedThreads, lockBackend, codexHistoryDatabase, threadStore };
}

function fileIsValid(home: string): boolean {
  try {
    resolveHostConfig(readConfigFile(home));
    return true;
  } catch {
    return false;
  }
}
