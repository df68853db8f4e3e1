// The process groups of the commands still running, so that a timeout, an interrupt, shutdown
// or the host's own exit reaches every process a command started, not only its first one.
// Each command is spawned as the leader of its own group (detached), and the group id is the
// leader's pid.

const live = new Set<number>();
let exitHookInstalled = false;

/** Remembers a running command's group; installs the exit hook on first use. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous: process.kill is, and SIGKILL cannot be ignored, so
    // no command outlives a host that exits without running its shutdown.
    process.on('exit', () => killAllGroups('SIGKILL'));
  }
}

export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}

/** Signals every process of the group; a group already gone (ESRCH) is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Signals every tracked group (shutdown, exit). */
export function killAllGroups(signal: NodeJS.Signals): void {
  for (const pgid of live) signalGroup(pgid, signal);
}

/** How many groups are tracked (tests, metrics). */
export function liveGroupCount(): number {
  return live.size;
}

// A killed process stays in its group as a zombie until its parent (or, for an orphan, init)
// reaps it; polling is the only way to see that from outside, and it takes a few ms.
const GROUP_POLL_MS = 5;

/** Resolves once no process (not even a zombie) is left in the group, or after `timeoutMs`. */
export function waitForGroupExit(pgid: number, timeoutMs: number): Promise<'gone' | 'timedOut'> {
  const deadline = performance.now() + timeoutMs;
  return new Promise((resolve) => {
    const poll = (): void => {
      if (!groupExists(pgid)) resolve('gone');
      else if (performance.now() >= deadline) resolve('timedOut');
      else setTimeout(poll, GROUP_POLL_MS);
    };
    poll();
  });
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
