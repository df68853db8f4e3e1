// Samples the kernel's lock table every SAMPLE_INTERVAL_MS while the handoff race runs: which
// server process holds which thread's writer lock (`<home>/thread-writer-locks/<thread id>.lock`),
// mapped from /proc/locks through each holder's fds (proc-locks.ts). A lock held on a lock
// file that was unlinked since still counts for its thread: two holders of one thread's lock
// through two inodes is the very bug the coordination lock exists to prevent.
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LockSample } from './handoff-verdict.js';
import { heldFlocks } from './proc-locks.js';

/**
 * The "every ~10 ms": finer than a handoff on thread-host (bench case `handoff`), cheap
 * on /proc.
 */
export const SAMPLE_INTERVAL_MS = 10;

const COORDINATION_LOCK = '.coordination.lock';
const LOCK_SUFFIX = '.lock';

export class WriterLockSampler {
  readonly #lockDir: string;
  readonly #pids = new Set<number>();
  readonly #samples: LockSample[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Samples taken, with or without holders. */
  count = 0;

  constructor(home: string) {
    this.#lockDir = join(home, 'thread-writer-locks');
  }

  /** Server processes whose locks count; a replacement is added when it starts. */
  watch(pid: number): void {
    this.#pids.add(pid);
  }

  start(): void {
    this.#timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  /** Takes one sample now (also the kill loop's view of what a victim holds); returns it. */
  sample(): LockSample {
    const holders: Array<{ threadId: string; pid: number }> = [];
    for (const lock of heldFlocks(this.#pids, this.#lockDir + '/')) {
      const name = basename(lock.path);
      if (name === COORDINATION_LOCK || !name.endsWith(LOCK_SUFFIX)) continue;
      holders.push({ threadId: name.slice(0, -LOCK_SUFFIX.length), pid: lock.pid });
    }
    const sample = { at: performance.now(), holders };
    this.count += 1;
    // Empty samples carry nothing for the verdict; keeping only the others bounds memory by activity.
    if (holders.length > 0) this.#samples.push(sample);
    return sample;
  }

  stop(): LockSample[] {
    clearInterval(this.#timer);
    return this.#samples;
  }
}
