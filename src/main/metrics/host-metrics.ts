// `GET /metrics` (thread-host; the reference has none): the Prometheus text exposition of a
// prom-client registry. Counters and histograms are updated by the recorder as things happen
// (O(1), never awaited); gauges of current state (connections, loaded threads by status) are
// computed when scraped, so serving requests never pays for them; process figures (RSS, open
// fds, event-loop delay) are prom-client's default metrics. Names are listed in the README.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { fsPromises } from '../lazy-builtin.js';
import type { ThreadDirectory } from '../threads/directory.js';
import type { HostRecorder } from './host-recorder.js';

/** The registry behind `/metrics` and the recorder that feeds it. */
export interface HostMetrics {
  recorder: HostRecorder;
  /** Adds the gauges read at scrape time and the process metrics; call once the host is built. */
  observe(sources: { directory: ThreadDirectory; connectionCount(): number }): void;
  render(): Promise<{ contentType: string; body: string }>;
  stop(): void;
}

/** prom-client's default metric of open descriptors (Linux only). */
const OPEN_FDS = 'process_open_fds';
// Event-loop delay sampling resolution: fine enough to see a 10 ms stall.
const EVENT_LOOP_RESOLUTION_MS = 10;
// Seconds. Turns against a model take 0.01–100 s; lock waits and unloads are ms unless contended.
const TURN_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300];
const WAIT_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];

export function createHostMetrics(): HostMetrics {
  const registry = new Registry();
  const registers = [registry];
  const turnsStarted = new Counter({ name: 'thread_host_turns_started_total', help: 'Turns started', registers });
  const turnsEnded = new Counter({ name: 'thread_host_turns_ended_total', help: 'Turns ended, by status', labelNames: ['status'] as const, registers });
  const turnSeconds = new Histogram({ name: 'thread_host_turn_duration_seconds', help: 'Turn duration', buckets: TURN_BUCKETS, registers });
  const lockAcquisitions = new Counter({
    name: 'thread_host_writer_lock_acquisitions_total',
    help: 'Writer-lock acquisitions, by outcome (acquired, activeWriter, timedOut)',
    labelNames: ['outcome'] as const,
    registers,
  });
  const lockWait = new Histogram({
    name: 'thread_host_writer_lock_wait_seconds',
    help: 'Time from a writer-lock acquisition to its answer, coordination-lock waits included',
    buckets: WAIT_BUCKETS,
    registers,
  });
  const unloads = new Counter({ name: 'thread_host_unloads_total', help: 'Thread unloads, by reason and outcome', labelNames: ['reason', 'outcome'] as const, registers });
  const unloadSeconds = new Histogram({ name: 'thread_host_unload_duration_seconds', help: 'Unload duration', buckets: WAIT_BUCKETS, registers });
  const janitorRemovals = new Counter({ name: 'thread_host_janitor_removals_total', help: 'Leftover lock files removed by the janitor', registers });
  const recorder: HostRecorder = {
    turnStarted: () => turnsStarted.inc(),
    turnEnded: (status, ms) => {
      turnsEnded.inc({ status });
      turnSeconds.observe(ms / 1000);
    },
    lockAcquired: (outcome, ms) => {
      lockAcquisitions.inc({ outcome });
      lockWait.observe(ms / 1000);
    },
    unloaded: (reason, outcome, ms) => {
      unloads.inc({ reason, outcome });
      unloadSeconds.observe(ms / 1000);
    },
    janitorRemoved: () => janitorRemovals.inc(),
  };
  return {
    recorder,
    observe: ({ directory, connectionCount }) => {
      collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS });
      // prom-client counts open descriptors with a readdirSync of /proc/self/fd on the main
      // thread: with thousands of threads loaded (a descriptor each) every scrape stalled
      // request handling (bench case `fanout` with --idle-threads, its server event-loop delay).
      // The same figure, read off the main thread.
      if (registry.getSingleMetric(OPEN_FDS) !== undefined) {
        registry.removeSingleMetric(OPEN_FDS);
        new Gauge({
          name: OPEN_FDS,
          help: 'Number of open file descriptors.',
          registers,
          async collect() {
            const fds = await fsPromises().readdir('/proc/self/fd').catch(() => null);
            // Less the descriptor the read itself held open.
            if (fds !== null) this.set(fds.length - 1);
          },
        });
      }
      new Gauge({
        name: 'thread_host_connections',
        help: 'Open client connections',
        registers,
        collect() {
          this.set(connectionCount());
        },
      });
      new Gauge({
        name: 'thread_host_loaded_threads',
        help: 'Loaded threads by status',
        labelNames: ['status'] as const,
        registers,
        collect() {
          const counts: Record<string, number> = { idle: 0, active: 0, systemError: 0 };
          for (const thread of directory.all()) counts[thread.status.type] = (counts[thread.status.type] ?? 0) + 1;
          for (const [status, count] of Object.entries(counts)) this.set({ status }, count);
        },
      });
    },
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
    stop: () => registry.clear(),
  };
}
