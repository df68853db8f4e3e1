// Test-only fault switches, read from the environment of the worker threads. They exist so
// tests can prove the main thread keeps serving when a worker misbehaves; unset, they cost
// nothing.

/** Faults a worker should inject. */
export interface Faults {
  /** Block the worker synchronously for this long when an actor closes (unload cleanup). */
  blockOnCloseMs: number;
  /** Throw from inside a turn whose user text equals this (simulates an actor crash). */
  crashOnText: string | null;
}

export function readFaults(env: NodeJS.ProcessEnv): Faults {
  return {
    blockOnCloseMs: Number(env.THREAD_HOST_FAULT_BLOCK_CLOSE_MS ?? 0) || 0,
    crashOnText: env.THREAD_HOST_FAULT_EXIT_ON_TEXT ?? null,
  };
}

/** Blocks this thread synchronously, as a stuck native call would. */
export function blockSynchronously(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
