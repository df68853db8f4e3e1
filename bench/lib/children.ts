// Every process the bench spawns is registered here so that the end of a case, a deadline or
// Ctrl-C can kill exactly those processes (by their own process group id) and nothing else.
//
// A server may also start processes that leave its group: codex 0.171.0 runs a login shell
// per thread/start for its "shell snapshot" in a new session, and kills only the shell on
// timeout, so the shell's own children outlive the server. Those carry the bench's unique
// temp home in their environment (CODEX_HOME=/tmp/thread-host-bench-XXXX), which is how
// `killStragglers` finds them, by pid, without touching anybody else's processes.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const live = new Set<ChildProcess>();

/** Registers a child spawned with `detached: true` (it leads its own process group). */
export function trackChild(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** SIGKILLs the group of every child still running. Synchronous, so it works in 'exit'. */
export function killAllChildren(): number {
  let killed = 0;
  for (const child of live) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      // The negative pid is the group this bench created with `detached`: grandchildren
      // (a wrapper script's real server) go too, and nobody else's processes.
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    killed += 1;
  }
  live.clear();
  return killed;
}

/** SIGKILLs every process whose environment holds `CODEX_HOME=<home>`; returns how many. */
export function killStragglers(home: string): number {
  const marker = Buffer.from(`CODEX_HOME=${home}\0`);
  let killed = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0; // not Linux: nothing to sweep
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`);
      // environ is NUL-separated; the marker matches a whole entry at the start or after a NUL.
      const at = environ.indexOf(marker);
      if (at === 0 || (at > 0 && environ[at - 1] === 0)) {
        process.kill(Number(pid), 'SIGKILL');
        killed += 1;
      }
    } catch {
      // gone already, or not ours to read
    }
  }
  return killed;
}
