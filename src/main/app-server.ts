// Composition root of `thread-host app-server`: read the configuration, build the host, serve
// the transport, and shut down in reverse order (host/shutdown.ts, one sequence for every
// path) when a signal arrives, over stdio when the one client goes, or when the start fails
// after the host was built.
import { workerEntry } from './build-layout.js';
import { systemClock } from '../common/clock.js';
import { createLogger, levelFromEnv } from '../common/log.js';
import { buildHost } from './host/build-host.js';
import { openStore } from './host/open-store.js';
import { serveConnections } from './host/serve-connections.js';
import { HostShutdown } from './host/shutdown.js';
import { readStartupConfig, type StartupConfig } from './host/startup-config.js';
import type { HostContext } from './host-context.js';
import type { HostMetrics } from './metrics/host-metrics.js';
import { LargeLineParser } from './input/large-line-parser.js';
import { Router } from './router.js';
import { StartupError } from './startup-error.js';
import { startStatsReporter } from './stats-reporter.js';
import type { ListenTarget } from './transport/listen-url.js';
import { StdioTransport } from './transport/stdio.js';
import type { WsAuthFlags, WsAuthPolicy } from './transport/ws-auth-options.js';
import type { FleetPeers } from './fleet/fleet-peers.js';
import { NO_RECORDING } from './metrics/host-recorder.js';
import { unloadThreadOfLostLock } from './threads/lock-loss.js';
import { warmUpHost } from './host/warm-up.js';
import { queueChangedElsewhere, queueChangedHere } from './handlers/thread-queue.js';
import type { ThreadId } from '../common/thread-id.js';

export interface AppServerOptions {
  home: string;
  overrides: string[];
  workers: number;
  env: NodeJS.ProcessEnv;
  listen: ListenTarget;
  wsAuth: WsAuthFlags;
  metricsWithoutAuth: boolean;
}

// When the host warms up (host/warm-up.ts) if no request has come yet.
const POOL_WARM_UP_DELAY_MS = 100;
// How long the line-parser worker may take over one line before it is replaced and the line
// answered like one past a limit. The slowest line allowed (32 MiB, or a million values)
// parses well within it on an idle machine (`node dist/bench/line-parse-cost.js --sizes 32`):
// the margin is for a machine under heavy load.
const LINE_PARSE_DEADLINE_MS = 5_000;

/** What both transports' serving needs. */
interface Serving {
  options: AppServerOptions;
  startup: StartupConfig;
  ctx: HostContext;
  router: Router;
  /** Decodes and parses lines of LARGE_LINE_BYTES and more off the main thread. */
  lines: LargeLineParser;
  stopStats: () => void;
  /** Resolves the exit code. */
  finish: (code: number) => void;
  peers: FleetPeers;
}

/** Serves until SIGTERM/SIGINT (or stdin's end, over stdio); resolves with the exit code. */
export async function runAppServer(options: AppServerOptions): Promise<number> {
  const log = createLogger(levelFromEnv(options.env));
  const { listen } = options;
  if (listen.kind === 'off') throw new StartupError('no transport configured; use --listen or enable remote control');
  const auth = await resolveAuth(options.wsAuth);
  const startup = readStartupConfig(options.home, options.overrides, options.env, log, listen);
  // /metrics exists only on the socket listeners; over stdio nothing is recorded. Loaded only
  // then: prom-client (and ws, jose below) delayed a stdio start's first reply (bench case
  // `cold-start`).
  const metrics = listen.kind === 'stdio' ? null : (await import('./metrics/host-metrics.js')).createHostMetrics();
  const recorder = metrics?.recorder ?? NO_RECORDING;
  // The store is opened before the host is built (a store it cannot use stops the start), and
  // reports into the host once it is.
  let ctx!: HostContext;
  const hooks = { lockLost: (loss: Parameters<typeof unloadThreadOfLostLock>[1]) => unloadThreadOfLostLock(ctx, loss), queueChangedHere: (threadId: ThreadId) => queueChangedHere(ctx, threadId) };
  const { store, peers } = await openStore({ home: options.home, env: options.env, startup, listen, log, recorder, hooks });
  ctx = buildHost(options, startup, log, store, recorder);
  const router = new Router(ctx, startup.limits.maxInFlightRequests, peers.routing(ctx.outgoing, ctx.serverRequests));
  peers.watchQueues((threadId) => queueChangedElsewhere(ctx, threadId));
  const stopStats = startStats(options.env, ctx);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  // A client that connects and waits still finds the workers up when it starts a thread.
  setTimeout(() => warmUpHost(ctx), POOL_WARM_UP_DELAY_MS).unref();
  const lines = new LargeLineParser({
    filename: workerEntry('line-parser'),
    deadlineMs: LINE_PARSE_DEADLINE_MS,
    clock: systemClock,
    log,
  });
  const serving: Serving = { options, startup, ctx, router, lines, stopStats, finish, peers };
  if (metrics === null || listen.kind === 'stdio') serveStdio(serving);
  else await serveSockets(serving, listen, auth, metrics);
  return finished;
}

function serveStdio({ startup, ctx, router, lines, stopStats, finish }: Serving): void {
  const transport = new StdioTransport({
    input: process.stdin,
    output: process.stdout,
    maxLineBytes: startup.limits.maxLineBytes,
    maxOutboundBytes: startup.limits.maxOutboundBytes,
  });
  const shutdown = new HostShutdown(ctx, stopStats);
  shutdown.serving(transport);
  serveConnections(ctx, router, lines, transport, {
    // stdio has one client: when it goes, so does the process. The table keeps the connection
    // until shutdown is done, so replies to requests already in flight still go out.
    onClosed: (connection, reason) =>
      void shutdown.run(`stdio ${reason}`).finally(() => {
        ctx.connections.close(connection.id);
        finish(0);
      }),
  });
  onSignals(shutdown, () => finish(0));
}

async function serveSockets(
  { options, startup, ctx, router, lines, stopStats, finish, peers }: Serving,
  target: Extract<ListenTarget, { kind: 'ws' | 'unix' }>,
  auth: WsAuthPolicy,
  metrics: HostMetrics,
): Promise<void> {
  const { createSocketListener } = await import('./host/socket-listener.js');
  const shutdown = new HostShutdown(ctx, () => {
    stopStats();
    metrics.stop();
  });
  const listener = await createSocketListener({
    target,
    auth,
    fleetAuth: peers.peerAuth,
    home: options.home,
    limits: startup.limits,
    metrics: { render: () => metrics.render(), withoutAuth: options.metricsWithoutAuth },
    env: options.env,
    log: ctx.log,
  }).catch(async (error: unknown) => abandon(shutdown, error));
  shutdown.listenerCreated(listener.cleanUp);
  metrics.observe({ directory: ctx.directory, connectionCount: () => listener.transport.connectionCount });
  // Many clients: one going is only an unsubscribe from everything (serveConnections did it).
  serveConnections(ctx, router, lines, listener.transport, { onClosed: (connection) => ctx.connections.close(connection.id) });
  const boundUrl = await listener.start().catch(async (error: unknown) => abandon(shutdown, error));
  if (boundUrl !== null) await peers.listening(boundUrl);
  // Only a started listener has a transport to stop, flush and close.
  shutdown.serving(listener.transport);
  onSignals(shutdown, () => finish(0));
}

// No auth flag means no auth whatever the transport. Any flag is checked at start (a bad
// combination is exit 1, even over stdio) by a module that loads node:crypto, which a start
// without auth flags does not need before its first reply.
async function resolveAuth(flags: WsAuthFlags): Promise<WsAuthPolicy> {
  if (Object.values(flags).every((value) => value === undefined)) return { mode: 'none' };
  return (await import('./transport/ws-auth-options.js')).resolveWsAuth(flags, process.cwd());
}

function onSignals(shutdown: HostShutdown, afterShutdown: () => void): void {
  const onSignal = (signal: string) => void shutdown.run(signal).finally(afterShutdown);
  // `on`, not `once`: a second signal while shutting down must not kill the process half-way
  // (shutdown is idempotent and every stage has a deadline).
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

/** Start-up failed after the host was built: the shutdown stops what it started, then the error goes on. */
async function abandon(shutdown: HostShutdown, error: unknown): Promise<never> {
  await shutdown.run('start-up failed');
  throw error;
}

function startStats(env: NodeJS.ProcessEnv, ctx: HostContext): () => void {
  const intervalMs = Number(env.THREAD_HOST_STATS_INTERVAL_MS) || 0;
  if (intervalMs <= 0) return () => undefined;
  return startStatsReporter(intervalMs, ctx.log, { loadedThreads: () => ctx.directory.loadedCount, liveWorkers: () => ctx.pool.liveWorkers });
}
