// Test-only fault switches, read from the environment of the worker threads. They exist so
// tests can prove the host keeps serving, and loses nothing, when a worker or the disk
// misbehaves; unset, they cost nothing.
//
//   THREAD_HOST_FAULT_BLOCK_CLOSE_MS=<ms>         block the worker when an actor closes
//   THREAD_HOST_FAULT_FAIL_SPAWN=1                the worker cannot host actors: each spawn fails
//   THREAD_HOST_FAULT_EXIT_ON_TEXT=<text>         the worker exits mid-turn (process.exit)
//   THREAD_HOST_FAULT_THROW_ON_TEXT=<text>        an exception nobody catches kills the worker
//   THREAD_HOST_FAULT_ACTOR_THROW_ON_TEXT=<text>  the actor's turn code throws (a bug in it)
//   THREAD_HOST_FAULT_OOM_ON_TEXT=<text>          the worker allocates until its heap limit
//   THREAD_HOST_FAULT_DISK_FULL_FLAG=<path>       while <path> exists the disk is full: it
//                                                 holds how many more rollout writes succeed
//                                                 (counted down); after those, a write lands
//                                                 half its bytes, then fails ENOSPC
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resourceLimits } from 'node:worker_threads';
import type { AppendFaults } from './history/files/rollout-appender.js';

/** What a turn whose user text matches a switch does to its worker. */
export type TurnFault = 'exitWorker' | 'throwUncaught' | 'throwInActor' | 'exhaustHeap';

/** Faults a worker should inject. */
export interface Faults {
  /** Block the worker synchronously for this long when an actor closes (unload cleanup). */
  blockOnCloseMs: number;
  /** Refuse every actor (a worker that cannot host one, e.g. out of descriptors for its files). */
  failSpawn: boolean;
  /** Faults keyed by the user text that triggers them. */
  turnFaults: ReadonlyMap<string, TurnFault>;
  /** Simulated disk for rollout appends; null when the disk is the real one only. */
  disk: AppendFaults | null;
}

const TURN_FAULT_ENV: ReadonlyArray<[string, TurnFault]> = [
  ['THREAD_HOST_FAULT_EXIT_ON_TEXT', 'exitWorker'],
  ['THREAD_HOST_FAULT_THROW_ON_TEXT', 'throwUncaught'],
  ['THREAD_HOST_FAULT_ACTOR_THROW_ON_TEXT', 'throwInActor'],
  ['THREAD_HOST_FAULT_OOM_ON_TEXT', 'exhaustHeap'],
];

export function readFaults(env: NodeJS.ProcessEnv): Faults {
  const turnFaults = new Map<string, TurnFault>();
  for (const [name, fault] of TURN_FAULT_ENV) {
    const text = env[name];
    if (text !== undefined) turnFaults.set(text, fault);
  }
  const flag = env.THREAD_HOST_FAULT_DISK_FULL_FLAG;
  return {
    blockOnCloseMs: Number(env.THREAD_HOST_FAULT_BLOCK_CLOSE_MS ?? 0) || 0,
    failSpawn: env.THREAD_HOST_FAULT_FAIL_SPAWN === '1',
    turnFaults,
    disk: flag ? { bytesAccepted: (length) => diskFullAccepts(flag, length) } : null,
  };
}

// The flag file is the disk's state, so a test can fill and free it while the host runs.
function diskFullAccepts(flag: string, length: number): number {
  if (!existsSync(flag)) return length;
  const writesLeft = Number.parseInt(readFileSync(flag, 'utf8'), 10) || 0;
  if (writesLeft <= 0) return Math.floor(length / 2);
  writeFileSync(flag, String(writesLeft - 1));
  return length;
}

/**
 * Injects `fault` into the running turn. Returns only for `throwUncaught`, whose exception is
 * thrown from a later task so that no caller in the actor can catch it.
 */
export function injectTurnFault(fault: TurnFault): void {
  switch (fault) {
    case 'exitWorker':
      process.exit(70);
      break;
    case 'throwUncaught':
      setImmediate(() => {
        throw new Error('injected fault: uncaught exception in the pool worker');
      });
      return;
    case 'throwInActor':
      throw new Error('injected fault: exception in the thread actor');
    case 'exhaustHeap':
      exhaustHeap();
  }
}

// Holds on to ever more memory until V8 hits the worker's heap limit, which terminates the
// worker (ERR_WORKER_OUT_OF_MEMORY). Without a limit that would be the whole process's heap,
// so the switch refuses to run unless the pool set one.
function exhaustHeap(): never {
  if (!resourceLimits.maxOldGenerationSizeMb) {
    throw new Error('injected fault: refusing to exhaust the heap of a worker without resourceLimits');
  }
  const hoard: number[][] = [];
  for (;;) hoard.push(new Array<number>(1 << 16).fill(hoard.length));
}

/** Blocks this thread synchronously, as a stuck native call would. */
export function blockSynchronously(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
