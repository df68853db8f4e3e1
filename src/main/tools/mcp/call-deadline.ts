// One deadline per call: the tool timeout on the injected clock, joined with the caller's
// signal. Everything a call waits for (the session's start, the server's answer) waits under
// `signal`, so nothing awaits forever and an interrupt ends the wait at once.
import type { Clock } from '../../../common/clock.js';

/** Why a deadline's signal fired: the time ran out, or the caller aborted. */
export class DeadlineReason extends Error {
  constructor(readonly kind: 'timedOut' | 'cancelled') {
    super(kind === 'timedOut' ? 'deadline passed' : 'cancelled');
  }
}

/** A timer and an outer signal as one `AbortSignal`; `dispose()` clears the timer. */
export class CallDeadline {
  readonly #controller = new AbortController();
  readonly #clock: Clock;
  readonly #timer: unknown;
  readonly #outer: AbortSignal | undefined;
  readonly #onOuterAbort = (): void => this.#controller.abort(new DeadlineReason('cancelled'));

  constructor(clock: Clock, ms: number, outer?: AbortSignal) {
    this.#clock = clock;
    this.#outer = outer;
    this.#timer = clock.setTimeout(() => this.#controller.abort(new DeadlineReason('timedOut')), ms);
    if (outer?.aborted) this.#onOuterAbort();
    else outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  dispose(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
  }
}

/** `work`, or a rejection with the signal's reason as soon as it aborts. */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    // `work` may still reject (the SDK rejects a request made under an aborted signal).
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
