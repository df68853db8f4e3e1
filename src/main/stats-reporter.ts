// Periodic health figures in the log, for soak runs and operators: resident memory, open file
// descriptors, event-loop delay (the promise of this host is that it never stalls), loaded
// threads and live workers. Enabled by THREAD_HOST_STATS_INTERVAL_MS; off by default.
import { readdirSync } from 'node:fs';
import type { LogFn } from '../common/log.js';
import { builtin } from './lazy-builtin.js';

export interface StatsSources {
  loadedThreads(): number;
  liveWorkers(): number;
}

/** Starts logging a `stats` line every `intervalMs`; returns a function that stops it. */
export function startStatsReporter(intervalMs: number, log: LogFn, sources: StatsSources): () => void {
  const { monitorEventLoopDelay } = builtin<typeof import('node:perf_hooks')>('node:perf_hooks');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const timer = setInterval(() => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    log('info', 'stats', {
      rssBytes: process.memoryUsage.rss(),
      openFds: countOpenFds(),
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      loadedThreads: sources.loadedThreads(),
      liveWorkers: sources.liveWorkers(),
    });
    delay.reset();
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    delay.disable();
  };
}

function countOpenFds(): number | null {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return null; // not Linux
  }
}
