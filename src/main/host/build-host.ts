// Builds the host's main-thread services and wires them together: the connection table and
// outgoing router, the thread directory, the writer-lock backend, the actor pool, and the
// supervisor with its one unload sequence. Nothing here starts reading input.
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../shared/clock.js';
import type { LogFn } from '../../shared/log.js';
import { ConnectionTable } from '../connections.js';
import { RolloutIndex } from '../history/rollout-index.js';
import type { HostContext } from '../host-context.js';
import { FlockWriterLocks } from '../locks/flock/flock-writer-locks.js';
import { Outgoing } from '../outgoing.js';
import { ActorPool } from '../pool/actor-pool.js';
import { ThreadDirectory } from '../threads/directory.js';
import { Supervisor } from '../threads/supervisor.js';
import { Unloader } from '../threads/unloader.js';
import { handleActorEvent, unloadThreadsOfLostWorker } from '../threads/turn-events.js';
import type { StartupConfig } from './startup-config.js';
import { NO_RECORDING, type HostRecorder } from '../metrics/host-recorder.js';
import { MeteredWriterLocks } from '../metrics/metered-writer-locks.js';

const ACTOR_SPAWN_TIMEOUT_MS = 30_000;

export interface HostOptions {
  home: string;
  workers: number;
  env: NodeJS.ProcessEnv;
}

export function buildHost(options: HostOptions, startup: StartupConfig, log: LogFn, recorder: HostRecorder = NO_RECORDING): HostContext {
  const connections = new ConnectionTable();
  const outgoing = new Outgoing(connections);
  const directory = new ThreadDirectory();
  const flockLocks = new FlockWriterLocks(options.home, {
    clock: systemClock,
    log,
    ...(startup.lockTimeoutMs ? { timeoutMs: startup.lockTimeoutMs } : {}),
    onJanitorEvent: (event) => {
      if (event.outcome === 'removed') recorder.janitorRemoved();
    },
  });
  const locks = recorder === NO_RECORDING ? flockLocks : new MeteredWriterLocks(flockLocks, recorder, systemClock);
  // The pool reports events and lost workers into the context built below.
  let ctx!: HostContext;
  const pool = new ActorPool({
    size: options.workers,
    filename: fileURLToPath(new URL('../../../workers/thread-host.js', import.meta.url)),
    onEvent: (event) => handleActorEvent(ctx, event),
    onWorkerLost: (threadIds) => unloadThreadsOfLostWorker(ctx, threadIds),
    log,
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
  ctx = {
    home: options.home,
    configDocument: startup.document,
    cwd: process.cwd(),
    env: options.env,
    clock: systemClock,
    log,
    connections,
    outgoing,
    directory,
    supervisor: new Supervisor({ clock: systemClock, directory, unloader, log }),
    pool,
    locks,
    rollouts: new RolloutIndex(options.home),
    actorSpawnTimeoutMs: ACTOR_SPAWN_TIMEOUT_MS,
    originator: null,
    draining: false,
    recorder,
  };
  return ctx;
}
