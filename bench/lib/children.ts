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

/** SIGKILLs the group of every child still running; returns their pids. Synchronous, so it works in 'exit'. */
export function killAllChildren(): number[] {
  const killed: number[] = [];
  for (const child of live) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      // The negative pid is the group this bench created with `detached`: grandchildren
      // (a wrapper script's real server) go too, and nobody else's processes.
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    killed.push(child.pid);
  }
  live.clear();
  return killed;
}

/**
 * Waits, synchronously and at most `deadlineMs`, until each pid has finished dying: gone, or a
 * zombie waiting for this process to reap it. A SIGKILL is delivered at once, but a process
 * with many threads and a large heap takes a few milliseconds to be torn down, and a bench
 * that exits before that leaves a server visibly running behind it.
 */
export function waitUntilDead(pids: readonly number[], deadlineMs: number): void {
  const until = Date.now() + deadlineMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const pid of pids) {
    while (Date.now() < until && stillRunning(pid)) Atomics.wait(pause, 0, 0, 5);
  }
}

function stillRunning(pid: number): boolean {
  try {
    // The state follows the parenthesized command name: Z is a zombie, X dead.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false; // gone (or not Linux: nothing to wait for)
  }
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
