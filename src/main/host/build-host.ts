// Builds the host's main-thread services and wires them together: the connection table and
// outgoing router, the thread directory, the writer-lock backend, the actor pool, and the
// supervisor with its one unload sequence. Nothing here starts reading input.
import { systemClock } from '../../common/clock.js';
import { CODEX_HISTORY_DB_ENV } from '../../common/codex-history-projection.js';
import { workerEntry } from '../build-layout.js';
import type { LogFn } from '../../common/log.js';
import { ConnectionTable } from '../connections.js';
import { HostMemo } from '../host-memo.js';
import { StoredHistory } from '../store/stored-history.js';
import type { HostContext } from '../host-context.js';
import type { LockLoss } from '../store/writer-lock-backend.js';
import type { ThreadStore } from '../store/thread-store.js';
import { Outgoing } from '../outgoing.js';
import { ShellHost } from '../tools/shell/shell-host.js';
import { ActorPool } from '../pool/actor-pool.js';
import { ThreadDirectory } from '../threads/directory.js';
import { LoadCapacity } from '../threads/load-capacity.js';
import { Supervisor } from '../threads/supervisor.js';
import { Unloader } from '../threads/unloader.js';
import { handleActorEvent, unloadThreadsOfLostWorker } from '../threads/turn-events.js';
import { loadLimitFor, readOpenFileLimit } from './descriptor-budget.js';
import { unloadThreadOfLostLock } from '../threads/lock-loss.js';
import type { StartupConfig } from './startup-config.js';
import { NO_RECORDING, type HostRecorder } from '../metrics/host-recorder.js';
import { MeteredWriterLocks } from '../metrics/metered-writer-locks.js';
import { drainAfterTurnEnd } from '../handlers/thread-queue.js';
import { ServerRequests } from '../server-requests/server-requests.js';
import { announceMcpStartup } from '../tools/mcp-startup-status.js';
import { ThreadMcp } from '../tools/thread-mcp.js';

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

export function buildHost(
  options: HostOptions,
  startup: StartupConfig,
  log: LogFn,
  store: ThreadStore,
  recorder: HostRecorder = NO_RECORDING,
): HostContext {
  const connections = new ConnectionTable();
  const outgoing = new Outgoing(connections);
  const directory = new ThreadDirectory();
  // The pool and the lock backend report into the context built below.
  let ctx!: HostContext;
  const onLost = (loss: LockLoss): void => unloadThreadOfLostLock(ctx, loss);
  const locks = recorder === NO_RECORDING ? store.locks : new MeteredWriterLocks(store.locks, recorder, systemClock);
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
    forgotten: (threadId) => {
      ctx.mcp.detach(threadId);
      ctx.shell.endThread(threadId);
    },
  });
  const supervisor = new Supervisor({ clock: systemClock, directory, unloader, log });
  const serverRequests = new ServerRequests({
    connections,
    log,
    clock: systemClock,
    graceMs: startup.toolCallGraceMs,
    notify: (connection, method, params) => outgoing.notify(connection, method, params),
  });
  const loadLimit = loadLimitFor(startup.maxLoadedThreads, options.workers, readOpenFileLimit(), log);
  ctx = {
    home: options.home,
    configDocument: startup.document,
    configLayers: startup.layers,
    memo: new HostMemo(),
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
    afterTurnEnd: (threadId) => drainAfterTurnEnd(ctx, threadId),
    store,
    storedHistory: StoredHistory.inWorkers({ filename: workerEntry('stored-history'), deadlineMs: STORED_HISTORY_DEADLINE_MS, clock: systemClock, log }),
    actorSpawnTimeoutMs: ACTOR_SPAWN_TIMEOUT_MS,
    originator: null,
    draining: false,
    serverRequests,
    mcp: new ThreadMcp(options.env, log, (event) => announceMcpStartup(ctx, event)),
    shell: new ShellHost(),
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
