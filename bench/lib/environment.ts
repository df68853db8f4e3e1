// The machine a run happened on, recorded with every report: the figures mean little without
// it, and load average says how noisy the machine was (other sessions share it).
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';

/** Where and with what a bench ran. */
export interface Environment {
  cpuCount: number;
  cpuModel: string;
  memTotalGiB: number;
  nodeVersion: string;
  platform: string;
  osRelease: string;
  /** 1, 5 and 15 minute load averages when the bench started and when it finished. */
  loadAverageStart: number[];
  loadAverageEnd: number[];
}

export function captureEnvironment(): Environment {
  const load = loadavg().map((x) => Math.round(x * 100) / 100);
  return {
    cpuCount: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memTotalGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    nodeVersion: process.version,
    platform: process.platform,
    osRelease: release(),
    loadAverageStart: load,
    loadAverageEnd: load,
  };
}

export function finishEnvironment(environment: Environment): Environment {
  return { ...environment, loadAverageEnd: loadavg().map((x) => Math.round(x * 100) / 100) };
}
