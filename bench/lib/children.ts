// Every process the bench spawns is registered here so that the end of a run, a deadline or
// Ctrl-C can kill exactly those processes (by their own process group id) and nothing else.
import type { ChildProcess } from 'node:child_process';

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
