// Composition root of `thread-host app-server`: read the configuration, build the host, serve
// the transport, and shut down in reverse order when the client goes or a signal arrives.
import { createLogger, levelFromEnv } from '../shared/log.js';
import { buildHost, loadLockfileBackend } from './host/build-host.js';
import { serveConnections } from './host/serve-connections.js';
import { createShutdown } from './host/shutdown.js';
import { readStartupConfig } from './host/startup-config.js';
import { ensureHomeBackend } from './locks/home-marker.js';
import { Router } from './router.js';
import { startStatsReporter } from './stats-reporter.js';
import { StdioTransport } from './transport/stdio.js';

export interface AppServerOptions {
  home: string;
  overrides: string[];
  workers: number;
  env: NodeJS.ProcessEnv;
}

// When the workers start if no request has come yet.
const POOL_WARM_UP_DELAY_MS = 100;

/** Serves stdio until stdin ends or SIGTERM/SIGINT; resolves with the exit code. */
export async function runAppServer(options: AppServerOptions): Promise<number> {
  const log = createLogger(levelFromEnv(options.env));
  const startup = readStartupConfig(options.home, options.overrides, options.env, log);
  // Before anything takes a lock: a home never has hosts on two backends (throws ConfigError).
  ensureHomeBackend(options.home, startup.lockBackend.kind);
  const ctx = buildHost(options, startup, log, await loadLockfileBackend(startup));
  const router = new Router(ctx, startup.limits.maxInFlightRequests);
  const stopStats = startStats(options.env, ctx);
  const transport = new StdioTransport({
    input: process.stdin,
    output: process.stdout,
    maxLineBytes: startup.limits.maxLineBytes,
    maxOutboundBytes: startup.limits.maxOutboundBytes,
  });
  const shutdown = createShutdown(ctx, transport, stopStats);
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  // A client that connects and waits still finds the workers up when it starts a thread.
  setTimeout(() => ctx.pool.warmUp(), POOL_WARM_UP_DELAY_MS).unref();
  serveConnections(ctx, router, transport, {
    // stdio has one client: when it goes, so does the process. The table keeps the connection
    // until shutdown is done, so replies to requests already in flight still go out.
    onClosed: (connection, reason) =>
      void shutdown(`stdio ${reason}`).finally(() => {
        ctx.connections.close(connection.id);
        finish(0);
      }),
  });
  const onSignal = (signal: string) => void shutdown(signal).finally(() => finish(0));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));
  return finished;
}

function startStats(env: NodeJS.ProcessEnv, ctx: ReturnType<typeof buildHost>): () => void {
  const intervalMs = Number(env.THREAD_HOST_STATS_INTERVAL_MS) || 0;
  if (intervalMs <= 0) return () => undefined;
  return startStatsReporter(intervalMs, ctx.log, { loadedThreads: () => ctx.directory.loadedCount, liveWorkers: () => ctx.pool.liveWorkers });
}
