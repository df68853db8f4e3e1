// Where each actor lives. Piscina would stack every actor on one worker, so placement is ours:
// a new actor goes to the live, serving worker hosting the fewest, preferring workers that
// answer in time; a worker that missed a deadline takes new actors again once it answers a
// ping.
import type { WorkerLink } from './worker-link.js';

type Log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export class ActorPlacement {
  readonly #links = new Map<number, WorkerLink>();
  readonly #byThread = new Map<string, WorkerLink>();

  /**
   * @param emptied called when a worker's last actor is forgotten (retirement may follow)
   */
  constructor(
    private readonly log: Log,
    private readonly emptied: (link: WorkerLink) => void,
  ) {}

  /** Every attached worker. */
  links(): IterableIterator<WorkerLink> {
    return this.#links.values();
  }

  get liveWorkers(): number {
    let live = 0;
    for (const link of this.#links.values()) if (link.alive) live += 1;
    return live;
  }

  /** Actors per live worker, by worker id. */
  counts(): Record<number, number> {
    const result: Record<number, number> = {};
    for (const link of this.#links.values()) if (link.alive) result[link.workerId] = link.actors.size;
    return result;
  }

  attached(link: WorkerLink): void {
    this.#links.set(link.workerId, link);
  }

  /** Places `threadId` on the least-loaded worker; undefined when no live worker serves. */
  place(threadId: string): WorkerLink | undefined {
    const link = this.#leastLoaded();
    if (!link) return undefined;
    link.actors.add(threadId);
    link.hosted += 1;
    this.#byThread.set(threadId, link);
    this.log('info', 'actor placed', { threadId, workerId: link.workerId });
    return link;
  }

  /** The worker `threadId` was placed on, alive or not. */
  placedOn(threadId: string): WorkerLink | undefined {
    return this.#byThread.get(threadId);
  }

  /** Drops the record of an actor (after it closed or its worker died). */
  forget(threadId: string): void {
    const link = this.#byThread.get(threadId);
    this.#byThread.delete(threadId);
    if (link === undefined) return;
    link.actors.delete(threadId);
    if (link.actors.size === 0) this.emptied(link);
  }

  /** A worker is gone: returns it, with the actors it hosted, none of which has a place now. */
  lose(workerId: number): { link: WorkerLink; orphans: string[] } | null {
    const link = this.#links.get(workerId);
    if (!link || !link.alive) return null;
    link.alive = false;
    this.#links.delete(workerId);
    const orphans = [...link.actors];
    for (const threadId of orphans) this.#byThread.delete(threadId);
    link.actors.clear();
    return { link, orphans };
  }

  /** New actors avoid `link` (it missed a deadline) until it answers a ping again. */
  markUnresponsive(link: WorkerLink | undefined, threadId: string): void {
    if (!link || !link.alive || !link.responsive) return;
    link.responsive = false;
    this.log('warn', 'pool worker unresponsive; placing new actors elsewhere', { workerId: link.workerId, threadId });
    link.api.ping().then(
      () => (link.responsive = true),
      () => undefined,
    );
  }

  // Fewest actors among responsive live workers; a stuck worker is used only when no other is left.
  #leastLoaded(): WorkerLink | undefined {
    let best: WorkerLink | undefined;
    const better = (link: WorkerLink) =>
      best === undefined ||
      (link.responsive && !best.responsive) ||
      (link.responsive === best.responsive && link.actors.size < best.actors.size);
    for (const link of this.#links.values()) if (link.alive && link.phase === 'serving' && better(link)) best = link;
    return best;
  }
}
