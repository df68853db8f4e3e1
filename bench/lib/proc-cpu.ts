// CPU time a server spent, read from /proc/<pid>/stat (user + system, every thread of the
// process, so thread-host's pool workers are included), or from the stat of its main thread
// alone. Unlike latency, CPU time per unit of work hardly moves when other processes share the
// machine: it is the bench's noise-robust figure for "how much does the server spend per
// delivered event".
import { readFileSync } from 'node:fs';

// USER_HZ: the unit of utime/stime. 100 on Linux for every architecture Node runs on.
const TICKS_PER_SECOND = 100;

/** User + system CPU time of `pid` in ms, or NaN when it is gone or /proc is not there. */
export function cpuMs(pid: number): number {
  return statFileCpuMs(`/proc/${pid}/stat`);
}

/**
 * User + system CPU time of `pid`'s main thread alone (the task whose id is the pid's), in ms,
 * or NaN: the thread thread-host answers every request and writes every notification on,
 * without its workers and V8's helper threads.
 */
export function mainThreadCpuMs(pid: number): number {
  return statFileCpuMs(`/proc/${pid}/task/${pid}/stat`);
}

/** utime + stime of one stat line, in ms. */
export function statCpuMs(stat: string): number {
  // Fields after the command name (in parentheses, may contain spaces and parentheses): state
  // is field 3, utime field 14, stime field 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function statFileCpuMs(path: string): number {
  try {
    return statCpuMs(readFileSync(path, 'utf8'));
  } catch {
    return Number.NaN;
  }
}
