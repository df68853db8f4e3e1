// Memory: a worker's heap goes back to the OS only when its isolate dies, so a worker left
// with no actors after hosting many (a mass unload) is retired, once it has been empty for
// RETIRE_IDLE_MS and another worker is serving: it confirms it hosts nothing, exits, and
// Piscina starts a fresh one in its place (see retire() in ActorHostApi). Workers retire one
// at a time, so one always takes new actors. Bench case `scale` (`--scale-rounds`) measures
// what a round of load all, unload all leaves behind.
import type { WorkerLink } from './worker-link.js';

/**
 * A worker that hosted fewer actors than this keeps running when it empties: its heap has not
 * grown much (an idle actor is a few kB of it), and a new worker costs a start.
 */
export const RETIRE_AFTER_ACTORS = 1_000;
/** Long enough that a burst of unloads and a new load right after do not restart a worker. */
export const RETIRE_IDLE_MS = 2_000;

export interface RetirementOptions {
  retireAfterActors?: number;
  retireIdleMs?: number;
  /** Every attached worker, the one considered included. */
  links(): Iterable<WorkerLink>;
  closing(): boolean;
  log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
}

export class WorkerRetirement {
  constructor(private readonly options: RetirementOptions) {}

  /** `link` has just emptied: retire it once it has stayed empty long enough, if worth it. */
  schedule(link: WorkerLink): void {
    const { retireAfterActors = RETIRE_AFTER_ACTORS, retireIdleMs = RETIRE_IDLE_MS } = this.options;
    if (this.options.closing() || !link.alive || link.hosted < retireAfterActors || link.retireTimer !== null) return;
    link.retireTimer = setTimeout(() => {
      link.retireTimer = null;
      void this.#tryRetire(link);
    }, retireIdleMs);
    // Retiring is housekeeping: it must not keep the process alive.
    link.retireTimer.unref();
  }

  cancel(link: WorkerLink): void {
    if (link.retireTimer !== null) clearTimeout(link.retireTimer);
    link.retireTimer = null;
  }

  // Only an empty worker, and only while another serves: new actors never wait for a worker
  // to start. One that another retirement or a slow close holds up is checked again later.
  async #tryRetire(link: WorkerLink): Promise<void> {
    if (this.options.closing() || !link.alive || link.phase !== 'serving' || link.actors.size > 0) return;
    const others = [...this.options.links()].filter((other) => other !== link && other.alive);
    if (others.some((other) => other.phase === 'retiring') || !others.some((other) => other.phase === 'serving')) {
      this.schedule(link);
      return;
    }
    link.phase = 'retiring';
    // No deadline: a late 'retiring' still ends the worker, so it must not take actors before
    // its answer; one that never answers is stuck, and no actor belongs there either.
    const answer = await link.api.retire().catch(() => 'failed' as const);
    if (answer === 'retiring') return; // its port closes as it exits: the pool's loss of it finishes the job
    this.options.log('info', 'pool worker not retired', { workerId: link.workerId, answer });
    link.phase = 'serving';
    if (link.actors.size === 0) this.schedule(link);
  }
}
