// The one deadline on a promise. Every wait that could stall the host (a worker, the home's
// files, the thread store, a database answer, a stage of shutdown) goes through it, on a clock
// it is given, so tests advance a fake clock instead of sleeping. The work itself is never
// cancelled (a syscall or a statement in flight cannot be): the deadline only ends the wait.
import type { Clock } from './clock.js';

/**
 * Settles as `work` does, unless `ms` pass on `clock` first: then as `onTimeout` does (with
 * its value, or rejected with what it throws). The timer goes as soon as either happens.
 */
export function withDeadline<T, L>(work: Promise<T>, ms: number, clock: Clock, onTimeout: () => L): Promise<T | L> {
  return new Promise<T | L>((resolve, reject) => {
    const timer = clock.setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error);
      }
    }, ms);
    work.then(
      (value) => {
        clock.clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** How a wait with a deadline ended: the work resolved, rejected, or was still running. */
export type SettledWithin = 'done' | 'failed' | 'timedOut';

/** `work`'s ending within `ms`, for waits that go on whatever it was (an unload, shutdown). Never rejects. */
export function settledWithin(work: Promise<unknown>, ms: number, clock: Clock): Promise<SettledWithin> {
  const ended = work.then(
    (): SettledWithin => 'done',
    (): SettledWithin => 'failed',
  );
  return withDeadline(ended, ms, clock, (): SettledWithin => 'timedOut');
}

/** An `onTimeout` that fails the wait with an Error of `message`. */
export const failWith =
  (message: string) =>
  (): never => {
    throw new Error(message);
  };
