// What the host reports as it works, for `/metrics`: turns, writer-lock acquisitions, unloads
// and janitor removals. Each call is O(1) and synchronous (a counter or histogram update),
// never awaited; over stdio, where there is no /metrics, the recorder does nothing.
import type { AcquireResult } from '../store/writer-lock-backend.js';
import type { UnloadReason } from '../threads/lifecycle.js';
import type { UnloadOutcome } from '../threads/unloader.js';

/** How a turn ended, as `turn/completed` reports it. */
export type TurnEnd = 'completed' | 'interrupted' | 'failed';

/** The host's events that metrics count. */
export interface HostRecorder {
  turnStarted(): void;
  turnEnded(status: TurnEnd, durationMs: number): void;
  /** One writer-lock acquisition, from the call to its answer (coordination waits included). */
  lockAcquired(outcome: AcquireResult['kind'], waitMs: number): void;
  unloaded(reason: UnloadReason, outcome: UnloadOutcome, durationMs: number): void;
  janitorRemoved(): void;
}

/** Records nothing (stdio). */
export const NO_RECORDING: HostRecorder = {
  turnStarted: () => undefined,
  turnEnded: () => undefined,
  lockAcquired: () => undefined,
  unloaded: () => undefined,
  janitorRemoved: () => undefined,
};
