// What every supervised command's group goes through, on pipes or on a terminal: tracked for
// shutdown, killed at its deadline (SIGKILL) or on interrupt (SIGTERM, then SIGKILL after the
// grace), and, once its leader exits, emptied of whatever the leader left running (a
// `sleep 100 &`) before the command counts as finished.
import type { CommandEnding } from './running-command.js';
import { signalGroup, trackGroup, untrackGroup, waitForGroupExit } from './process-groups.js';

/** The reference's `IO_DRAIN_TIMEOUT_MS`: how long output may trail the exit. */
export const IO_DRAIN_TIMEOUT_MS = 2_000;

export interface GroupWatchOptions {
  readonly timeoutMs: number;
  /** SIGTERM first on interrupt, SIGKILL this long after. */
  readonly killGraceMs: number;
  readonly signal?: AbortSignal | undefined;
}

export class GroupWatch {
  #ending: CommandEnding | null = null;
  #graceTimer: NodeJS.Timeout | undefined;
  readonly #deadline: NodeJS.Timeout;
  readonly #onAbort = (): void => {
    this.#ending ??= 'interrupted';
    signalGroup(this.pgid, 'SIGTERM');
    this.#graceTimer = setTimeout(() => signalGroup(this.pgid, 'SIGKILL'), this.options.killGraceMs);
  };

  /** Starts watching the group led by `pgid`, a process just spawned as its leader. */
  constructor(
    private readonly pgid: number,
    private readonly options: GroupWatchOptions,
  ) {
    trackGroup(pgid);
    this.#deadline = setTimeout(() => {
      this.#ending ??= 'timedOut';
      signalGroup(pgid, 'SIGKILL');
    }, options.timeoutMs);
    if (options.signal?.aborted === true) this.#onAbort();
    else options.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Set once the deadline or the interrupt ended the command; null while it ends by itself. */
  get ending(): CommandEnding | null {
    return this.#ending;
  }

  /**
   * The leader exited: the timers stop, the rest of the group is killed, and this resolves once
   * the group is empty (or after IO_DRAIN_TIMEOUT_MS). The group id stays valid while any member
   * lives, so the kill cannot reach another group.
   */
  leaderExited(): Promise<void> {
    clearTimeout(this.#deadline);
    this.options.signal?.removeEventListener('abort', this.#onAbort);
    signalGroup(this.pgid, 'SIGKILL');
    clearTimeout(this.#graceTimer);
    return waitForGroupExit(this.pgid, IO_DRAIN_TIMEOUT_MS).then(() => untrackGroup(this.pgid));
  }
}
