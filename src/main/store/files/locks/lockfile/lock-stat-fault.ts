// Test-only fault switch for the lockfile backend, read from the host's environment. It lets an
// e2e test stop the host at the one moment the heartbeat is most fragile: after the stat of a
// lock directory was answered, before the heartbeat has seen the answer. Unset, it costs nothing.
//
//   THREAD_HOST_FAULT_HOLD_LOCK_STAT_FLAG=<path>  while <path> exists, the next answered stat
//       of a thread's lock directory removes it, logs 'injected fault: lock directory stat
//       reply held' with the directory, and reaches its caller only after the number of
//       milliseconds <path> holds. The event loop keeps running meanwhile; the test sends
//       SIGSTOP within the hold, so the pause begins inside the window.
import nodeFs from 'node:fs';
import type { LogFn } from '../../../../../common/log.js';
import { COORDINATION_LOCK } from './lock-dir.js';

const FLAG_ENV = 'THREAD_HOST_FAULT_HOLD_LOCK_STAT_FLAG';

type StatCallback = (error: NodeJS.ErrnoException | null, stats: nodeFs.Stats) => void;

/** The fs for the lockfile backend when the switch is set; undefined (the real fs) otherwise. */
export function lockStatFault(env: NodeJS.ProcessEnv, log: LogFn): typeof nodeFs | undefined {
  const flag = env[FLAG_ENV];
  if (!flag) return undefined;
  const stat = (path: string, callback: StatCallback): void => {
    nodeFs.stat(path, (error, stats) => {
      const holdMs = isThreadLockDir(path) ? takeFlag(flag) : null;
      if (holdMs === null) return callback(error, stats);
      log('warn', 'injected fault: lock directory stat reply held', { path, holdMs });
      setTimeout(() => callback(error, stats), holdMs);
    });
  };
  return { ...nodeFs, stat } as typeof nodeFs;
}

function isThreadLockDir(path: string): boolean {
  return path.endsWith('.lock') && !path.endsWith(COORDINATION_LOCK);
}

// The flag file is the switch, so a test arms it while the host runs; it fires once.
function takeFlag(flag: string): number | null {
  try {
    const holdMs = Number.parseInt(nodeFs.readFileSync(flag, 'utf8'), 10) || 0;
    nodeFs.unlinkSync(flag);
    return holdMs;
  } catch {
    return null;
  }
}
