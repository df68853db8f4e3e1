// Admission of new loads (thread/start, cold thread/resume) against `max_loaded_threads`.
// A full host refuses the new load at once, before it opens anything, so the threads it
// already holds keep the descriptors their turns need (a lock file, a rollout, a model socket
// each). Before refusing it makes room the way Orleans collects activations under pressure:
// the idle thread without subscribers that has waited longest is unloaded early, and the
// load goes ahead once it is gone.
import { hostFull } from '../../common/errors.js';
import type { ThreadDirectory } from './directory.js';
import type { Supervisor } from './supervisor.js';
import type { Unloader } from './unloader.js';

export interface LoadCapacityDeps {
  directory: Pick<ThreadDirectory, 'registeredCount'>;
  supervisor: Pick<Supervisor, 'tryEvictIdle'>;
  unloader: Pick<Unloader, 'anyFinished'>;
  /** Most threads registered at once. */
  maxLoadedThreads: number;
  /** What to raise when the host is full, for the error message. */
  remedy: string;
}

export class LoadCapacity {
  readonly #deps: LoadCapacityDeps;

  constructor(deps: LoadCapacityDeps) {
    this.#deps = deps;
  }

  get maxLoadedThreads(): number {
    return this.#deps.maxLoadedThreads;
  }

  /**
   * null when one more thread fits now: the caller registers it before any await, so no
   * concurrent load can take the same room. Otherwise a promise that settles when an unload
   * ends (each has a deadline), after which the caller asks again. Throws -32001 "host is
   * full" when nothing is on its way out.
   */
  roomOrWait(): Promise<unknown> | null {
    const { directory, supervisor, unloader, maxLoadedThreads, remedy } = this.#deps;
    const loaded = directory.registeredCount;
    if (loaded < maxLoadedThreads) return null;
    const leaving = supervisor.tryEvictIdle() ?? unloader.anyFinished();
    if (leaving !== null) return leaving;
    throw hostFull(loaded, remedy);
  }
}
