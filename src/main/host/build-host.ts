// Builds the host's main-thread services and wires them together: the connection table and
// outgoing router, the thread directory, the writer-lock backend, the actor pool, and the
// supervisor with its one unload sequence. Nothing here starts reading input.
import { systemClock } from '../../common/clock.js';
import { codexStateDatabasesBeside } from '../../common/codex-db/codex-state-changes.js';
import { CODEX_HISTORY_DB_ENV } from '../../common/codex-history-projection.js';
import { workerEntry } from '../build-layout.js';
import type { LogFn } from '../../common/log.js';
import { ConnectionTable } from '../connections.js';
import { RolloutIndex } from '../store/files/rollout-index.js';
import { CodexStateMirror } from '../store/files/codex-state-mirror.js';
import { FilesThreadStore } from '../store/files/files-threads.js';
import { ThreadReadStates } from '../store/files/thread-read-states.js';
import { ThreadMetadata } from '../store/files/thread-metadata.js';
import { ThreadNames } from '../store/files/thread-names.js';
import { queueStoreOf } from '../threads/thread-queue-store.js';
import { FilesThreadQueues } from '../threads/thread-queues.js';
import { StoredHistory } from '../store/stored-history.js';
import type { HostContext } from '../host-context.js';
import { FlockWriterLocks } from '../store/files/locks/flock/flock-writer-locks.js';
import type { LockfileWriterLocks } from '../store/files/locks/lockfile/lockfile-writer-locks.js';
import type { LockLoss, WriterLockBackend } from '../store/writer-lock-backend.js';
import { Outgoing } from '../outgoing.js';
import { ActorPool } from '../pool/actor-pool.js';
import { ThreadDirectory } from '../threads/directory.js';
import { LoadCapacity } from '../threads/load-capacity.js';
import { Supervisor } from '../threads/supervisor.js';
import { Unloader } from '../threads/unloader.js';
import { handleActorEvent, unloadThreadsOfLostWorker } from '../threads/turn-events.js';
import { loadLimitFor, readOpenFileLimit } from './descriptor-budget.js';
import { unloadThreadOfLostLock } from '../threads/lock-loss.js';
import type { StartupConfig } from './startup-config.js';
import type { Fleet } from '../fleet/fleet.js';
import { NO_RECORDING, type HostRecorder } from '../metrics/host-recorder.js';
import { MeteredWriterLocks } from '../metrics/metered-writer-locks.js';

const ACTOR_SPAWN_TIMEOUT_MS = 30_000;
// How long a read of stored history may go without progress (a listing reports it file by file)
// before it fails and the stored-history worker is replaced: a hung network home. A read of a
// rollout of hundreds of megabytes must fit well within it (bench case `stored-read` times a
// 20 MB one).
const STORED_HISTORY_DEADLINE_MS = 60_000;

export interface HostOptions {
  home: string;
  workers: number;
  env: NodeJS.ProcessEnv;
}

/**
 * The lockfile backend's class, loaded only by hosts configured for it: proper-lockfile brings
 * graceful-fs, which patches the process's `fs`, and signal-exit, which hooks signals, and a
 * flock host needs neither.
 */
export type LockfileBackendClass = typeof LockfileWriterLocks;

/** Loads what `startup` selects that buildHost must not load eagerly. */
export async function loadLockfileBackend(startup: StartupConfig): Promise<LockfileBackendClass | null> {
  if (startup.lockBackend.kind !== 'lockfile') return null;
  return (await import('../store/files/locks/lockfile/lockfile-writer-locks.js')).LockfileWriterLocks;
}

export function buildHost(
  options: HostOptions,
  startup: StartupConfig,
  log: LogFn,
  lockfileClass: LockfileBackendClass | null = null,
  recorder: HostRecorder = NO_RECORDING,
  fleet: Fleet | null = null,
): HostContext {
  const connections = new ConnectionTable();
  const outgoing = new Outgoing(connections);
  const directory = new ThreadDirectory();
  // The pool and the lock backend report into the context built below.
  let ctx!: HostContext;
  const onLost = (loss: LockLoss): void => unloadThreadOfLostLock(ctx, loss);
  if (fleet !== null) fleet.onLost = onLost;
  const backend = fleet?.locks ?? buildLocks(options, startup, log, lockfileClass, recorder, onLost);
  const locks = recorder === NO_RECORDING ? backend : new MeteredWriterLocks(backend, recorder, systemClock);
  const pool = new ActorPool({
    size: options.workers,
    filename: workerEntry('thread-host'),
    onEvent: (event) => handleActorEvent(ctx, event),
    onWorkerLost: (threadIds) => unloadThreadsOfLostWorker(ctx, threadIds),
    log,
    env: workerEnv(options.env, startup.codexHistoryDatabase),
    // A worker whose heap outgrows this is terminated (its threads fail and can be resumed)
    // instead of taking the whole process down; unset, V8's default heap limit applies.
    maxOldGenerationSizeMb: Number(options.env.THREAD_HOST_WORKER_MAX_OLD_GENERATION_MB) || undefined,
  });
  const unloader = new Unloader({
    clock: systemClock,
    directory,
    actors: pool,
    locks,
    announcer: outgoing,
    actorCloseTimeoutMs: startup.actorCloseTimeoutMs,
    log,
    recorder,
  });
  const supervisor = new Supervisor({ clock: systemClock, directory, unloader, log });
  const rollouts = new RolloutIndex(options.home);
  // The reference's state and queue databases sit beside its history database, and are
  // mirrored into under the same switch (codex_history_projection; off on a lockfile home).
  const codexStateMirror =
    fleet !== null || startup.codexHistoryDatabase === null
      ? null
      : CodexStateMirror.inWorker({ filename: workerEntry('stored-history'), databases: codexStateDatabasesBeside(startup.codexHistoryDatabase), clock: systemClock, log });
  const loadLimit = loadLimitFor(startup.maxLoadedThreads, options.workers, readOpenFileLimit(), log);
  ctx = {
    home: options.home,
    configDocument: startup.document,
    configLayers: startup.layers,
    cwd: process.cwd(),
    env: options.env,
    clock: systemClock,
    log,
    connections,
    outgoing,
    directory,
    supervisor,
    capacity: new LoadCapacity({ directory, supervisor, unloader, ...loadLimit }),
    pool,
    locks,
    lockLost: onLost,
    // Names live in the store: session_index.jsonl for files, the threads table for PostgreSQL.
    threadStore: fleet?.store ?? new FilesThreadStore(options.home, rollouts, new ThreadNames(options.home, log, codexStateMirror?.nameSet)),
    rollouts,
    // Read states and metadata live in the store too: thread-host's own files, or the threads table.
    threadMetadata: fleet?.metadata ?? new ThreadMetadata(options.home, log),
    threadReadStates: fleet?.readStates ?? new ThreadReadStates(options.home, log, undefined, codexStateMirror?.receiptRecorded),
    threadQueues: fleet?.queues ?? new FilesThreadQueues(() => queueStoreOf(ctx)),
    storedHistory: StoredHistory.inWorkers({ filename: workerEntry('stored-history'), deadlineMs: STORED_HISTORY_DEADLINE_MS, clock: systemClock, log }),
    codexStateMirror,
    actorSpawnTimeoutMs: ACTOR_SPAWN_TIMEOUT_MS,
    originator: null,
    draining: false,
    recorder,
  };
  return ctx;
}

/** The pool workers' environment: the host's, and where the history database is (or not). */
function workerEnv(env: NodeJS.ProcessEnv, codexHistoryDatabase: string | null): Record<string, string> {
  const copy = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  delete copy[CODEX_HISTORY_DB_ENV];
  return codexHistoryDatabase === null ? copy : { ...copy, [CODEX_HISTORY_DB_ENV]: codexHistoryDatabase };
}

function buildLocks(
  { home, env }: HostOptions,
  startup: StartupConfig,
  log: LogFn,
  lockfileClass: LockfileBackendClass | null,
  recorder: HostRecorder,
  onLost: (loss: LockLoss) => void,
): WriterLockBackend {
  const common = { clock: systemClock, log, ...(startup.lockTimeoutMs ? { timeoutMs: startup.lockTimeoutMs } : {}) };
  const backend = startup.lockBackend;
  if (backend.kind === 'flock') {
    // Only flock has a janitor whose removals /metrics counts.
    return new FlockWriterLocks(home, { ...common, onJanitorEvent: (event) => event.outcome === 'removed' && recorder.janitorRemoved() });
  }
  if (lockfileClass === null) throw new Error('the lockfile backend was configured but not loaded (loadLockfileBackend)');
  return new lockfileClass(home, { ...common, staleMs: backend.staleMs, updateMs: backend.updateMs, onLost, faultEnv: env });
}
