// Composition root of `thread-host app-server`: reads configuration, starts the pool, wires
// transport → router → handlers and actor events → notifications, and shuts everything down
// in reverse order with a deadline on every stage.
import { fileURLToPath } from 'node:url';
import { ActorPool } from './pool/actor-pool.js';
import { RolloutIndex } from './history/rollout-index.js';
import { systemClock } from '../shared/clock.js';
import { ThreadDirectory } from './threads/directory.js';
import { WriterLockManager } from './locks/writer-lock-manager.js';
import { Supervisor, withDeadline } from './threads/supervisor.js';
import { ConfigError, parseOverride, readConfigFile, withValueAt, type ConfigDocument } from './config/config-document.js';
import { DEFAULT_CONNECTION_LIMITS, resolveConnectionLimits, resolveHostConfig } from './config/host-config.js';
import { ConnectionTable } from './connections.js';
import { dropConnection } from './handlers/thread-subscriptions.js';
import type { HostContext } from './host-context.js';
import { createLogger, levelFromEnv } from '../shared/log.js';
import { Outgoing } from './outgoing.js';
import { Router } from './router.js';
import { startStatsReporter } from './stats-reporter.js';
import { StdioTransport } from './transport/stdio.js';
import { failTurnLocally, handleActorEvent } from './threads/turn-events.js';

export interface AppServerOptions {
  home: string;
  overrides: string[];
  workers: number;
  env: NodeJS.ProcessEnv;
}

const ACTOR_SPAWN_TIMEOUT_MS = 30_000;
// How long an unload waits for the actor to flush and close its rollout before finishing
// from the main thread anyway.
const DEFAULT_ACTOR_CLOSE_TIMEOUT_MS = 2_000;
// Whole-shutdown budget: answer in-flight requests, interrupt turns, unload threads, stop the pool.
const SHUTDOWN_DEADLINE_MS = 5_000;
// When the workers start if no request has come yet.
const POOL_WARM_UP_DELAY_MS = 100;
// Part of that budget given to requests already in flight when shutdown starts.
const IN_FLIGHT_DRAIN_MS = 2_000;

/** Resolves once `done()` holds (checked every 10 ms) or `ms` have passed. */
async function waitUntil(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Reads config.toml plus `-c` overrides; throws ConfigError for a malformed file or override. */
export function loadConfigDocument(home: string, overrides: string[]): ConfigDocument {
  let document = readConfigFile(home);
  for (const text of overrides) {
    const { path, value } = parseOverride(text);
    document = withValueAt(document, path, value);
  }
  return document;
}

function fileIsValid(home: string): boolean {
  try {
    resolveHostConfig(readConfigFile(home));
    return true;
  } catch {
    return false;
  }
}

export async function runAppServer(options: AppServerOptions): Promise<number> {
  const log = createLogger(levelFromEnv(options.env));
  const configDocument = loadConfigDocument(options.home, options.overrides);
  // Like the reference: a bad `-c` value stops the process at once, while a bad value in
  // config.toml lets it start and surfaces on thread/start.
  let lockTimeoutMs: number | undefined;
  // Per-connection limits (config.toml `max_line_bytes`, `max_in_flight_requests`,
  // `max_outbound_bytes`); the defaults apply when the configuration is invalid.
  let limits = DEFAULT_CONNECTION_LIMITS;
  try {
    lockTimeoutMs = resolveHostConfig(configDocument).writerLockTimeoutMs;
    limits = resolveConnectionLimits(configDocument);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (options.overrides.length > 0 && fileIsValid(options.home)) throw error;
    log('error', 'invalid configuration; thread/start will report it', { error: error.message });
  }
  const actorCloseTimeoutMs = Number(options.env.THREAD_HOST_ACTOR_CLOSE_TIMEOUT_MS) || DEFAULT_ACTOR_CLOSE_TIMEOUT_MS;

  const connections = new ConnectionTable();
  const outgoing = new Outgoing(connections);
  const directory = new ThreadDirectory();
  const locks = new WriterLockManager(options.home, { clock: systemClock, ...(lockTimeoutMs ? { timeoutMs: lockTimeoutMs } : {}) });
  let ctx!: HostContext;
  const pool = new ActorPool({
    size: options.workers,
    filename: fileURLToPath(new URL('../../workers/thread-host.js', import.meta.url)),
    onEvent: (event) => handleActorEvent(ctx, event),
    onWorkerLost: (threadIds) => {
      for (const id of threadIds) {
        const thread = directory.get(id);
        if (!thread) continue;
        for (const turn of thread.turns) {
          if (turn.status === 'inProgress') failTurnLocally(ctx, thread, turn.id, 'the worker hosting this thread exited; resume the thread to continue');
        }
        void supervisor.unload(thread, 'workerLost');
      }
    },
    log: (level, message, fields) => log(level, message, fields),
    // A worker whose heap outgrows this is terminated (its threads fail and can be resumed)
    // instead of taking the whole process down; unset, V8's default heap limit applies.
    maxOldGenerationSizeMb: Number(options.env.THREAD_HOST_WORKER_MAX_OLD_GENERATION_MB) || undefined,
  });
  const supervisor = new Supervisor({
    clock: systemClock,
    directory,
    actorCloseTimeoutMs,
    closeActor: (thread) => {
      const link = pool.linkOf(thread.id);
      return link ? link.api.close(thread.id) : Promise.reject(new Error('actor is gone'));
    },
    actorUnresponsive: (thread) => pool.reportUnresponsive(thread.id),
    releaseLock: (thread) => {
      if (thread.writerLock) log('info', 'writer lock released', { threadId: thread.id, result: locks.release(thread.writerLock) });
      thread.writerLock = null;
    },
    announceUnloaded: (thread) => {
      pool.forget(thread.id);
      outgoing.broadcast('thread/status/changed', { threadId: thread.id, status: { type: 'notLoaded' } });
      outgoing.broadcast('thread/closed', { threadId: thread.id });
    },
    log: (level, message, fields) => log(level, message, fields),
  });
  ctx = {
    home: options.home,
    configDocument,
    cwd: process.cwd(),
    env: options.env,
    clock: systemClock,
    log,
    connections,
    outgoing,
    directory,
    supervisor,
    pool,
    locks,
    rollouts: new RolloutIndex(options.home),
    actorSpawnTimeoutMs: ACTOR_SPAWN_TIMEOUT_MS,
    originator: null,
    draining: false,
  };
  const router = new Router(ctx, limits.maxInFlightRequests);
  const statsIntervalMs = Number(options.env.THREAD_HOST_STATS_INTERVAL_MS) || 0;
  const stopStats =
    statsIntervalMs > 0
      ? startStatsReporter(statsIntervalMs, log, { loadedThreads: () => directory.loadedCount, liveWorkers: () => pool.liveWorkers })
      : () => undefined;

  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let shuttingDown = false;
  const shutdown = async (why: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    ctx.draining = true;
    log('info', 'shutting down', { why, loaded: directory.loadedCount });
    // Worker ports and lock timers are unref'd, and after stdin EOF nothing else holds the
    // event loop: without this handle Node would exit before the unloads finish.
    const keepAlive = setTimeout(() => undefined, SHUTDOWN_DEADLINE_MS + 5_000);
    const work = (async () => {
      // Requests already accepted (a thread/start still waiting for the pool, say) get their
      // answer before the threads go; new lines are no longer read.
      await waitUntil(() => connection.inFlight === 0, IN_FLIGHT_DRAIN_MS);
      for (const thread of directory.all()) {
        if (thread.runningTurnId) pool.linkOf(thread.id)?.api.interrupt(thread.id, thread.runningTurnId).catch(() => undefined);
      }
      await supervisor.unloadAll('shutdown');
    })();
    await withDeadline(work, SHUTDOWN_DEADLINE_MS, systemClock);
    supervisor.stop();
    stopStats();
    locks.close();
    await transport.flush(1_000);
    await pool.close();
    clearTimeout(keepAlive);
    finish(0);
  };

  let poolWarm = false;
  // A client that connects and waits still finds the workers up when it starts a thread.
  setTimeout(() => pool.warmUp(), POOL_WARM_UP_DELAY_MS).unref();
  const connection = connections.open((line) => transport.send(line));
  const transport = new StdioTransport({
    input: process.stdin,
    output: process.stdout,
    maxLineBytes: limits.maxLineBytes,
    maxOutboundBytes: limits.maxOutboundBytes,
    onLine: (text) => {
      router.handleLine(connection, text);
      // Workers start once the first reply is on its way, so a cold start answers
      // `initialize` without paying for them; `ready()` starts them anyway if needed first.
      if (!poolWarm) {
        poolWarm = true;
        setImmediate(() => pool.warmUp());
      }
    },
    onDropped: (event) => router.handleDroppedLine(connection, event),
    onClose: (reason) => {
      dropConnection(ctx, connection);
      // The table keeps the connection until shutdown is done, so in-flight replies still go out.
      void shutdown(`stdio ${reason}`).finally(() => connections.close(connection.id));
    },
  });
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return finished;
}
