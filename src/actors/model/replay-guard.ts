// Keeps a retried sampling from showing the caller the same events twice.
import { ModelStreamError, STREAM_CLOSED_BEFORE_COMPLETED, streamDisconnected, type ModelEvent } from './model-client.js';

/**
 * Remembers what the caller has seen so a retried sampling does not repeat it. Each retry must
 * replay the same events up to that point; if it diverges, the events already shown cannot be
 * taken back, so the retry fails with the error that caused it.
 */
export class ReplayGuard {
  readonly #record: boolean;
  readonly #seen: string[] = [];
  #cursor = 0;
  #lastFailure: ModelStreamError | null = null;
  diverged = false;

  constructor(record: boolean) {
    this.#record = record;
  }

  /** True when the event is new to the caller. */
  admit(event: ModelEvent): boolean {
    if (!this.#record) return true;
    const key = JSON.stringify(event);
    if (this.#cursor < this.#seen.length) {
      if (this.#seen[this.#cursor] !== key) {
        this.diverged = true;
        throw this.#lastFailure ?? streamDisconnected(STREAM_CLOSED_BEFORE_COMPLETED);
      }
      this.#cursor += 1;
      return false;
    }
    this.#seen.push(key);
    this.#cursor += 1;
    return true;
  }

  /** Starts a replay after `failure` broke the previous attempt. */
  rewind(failure: ModelStreamError): void {
    this.#cursor = 0;
    this.#lastFailure = failure;
  }
}
