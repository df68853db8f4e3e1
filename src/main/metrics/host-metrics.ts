// `GET /metrics` (thread-host; the reference has none): the Prometheus text exposition of a
// prom-client registry. Gauges that describe current state (connections, loaded threads by
// status) are computed when scraped, so serving requests never pays for them; process figures
// (RSS, open fds, event-loop delay) are prom-client's default metrics.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { HostContext } from '../host-context.js';

/** The registry behind `/metrics`. */
export interface HostMetrics {
  render(): Promise<{ contentType: string; body: string }>;
  /** Stops the default collectors' timers (event-loop delay monitor). */
  stop(): void;
}

// Event-loop delay sampling resolution: fine enough to see a 10 ms stall.
const EVENT_LOOP_RESOLUTION_MS = 10;

export function createHostMetrics(ctx: HostContext, connectionCount: () => number): HostMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS });
  new Gauge({
    name: 'thread_host_connections',
    help: 'Open client connections',
    registers: [registry],
    collect() {
      this.set(connectionCount());
    },
  });
  new Gauge({
    name: 'thread_host_loaded_threads',
    help: 'Loaded threads by status',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      const counts: Record<string, number> = { idle: 0, active: 0, systemError: 0 };
      for (const thread of ctx.directory.all()) counts[thread.status.type] = (counts[thread.status.type] ?? 0) + 1;
      this.reset();
      for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
    },
  });
  return {
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    stop: () => registry.clear(),
  };
}
