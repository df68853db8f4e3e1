// Hosts thread actors in a Piscina pool of worker threads (2 by default, mirroring the
// reference's TOKIO_WORKER_THREADS=2). Each worker runs one ActorHost that multiplexes the
// actors placed on it; the main thread reaches it with comlink over a MessagePort, and
// receives its actors' events on a second port.
//
//   main thread                               worker k (Piscina)
//   ┌──────────────┐  comlink (commands)     ┌──────────────────────────┐
//   │ WorkerLink k ├────────────────────────>│ ActorHost ─ ThreadActor… │
//   │              │<────────────────────────┤  (one mailbox per actor) │
//   └──────────────┘  events (plain objects) └──────────────────────────┘
//
// Piscina's job is the workers' lifecycle: start them, replace one that dies, apply
// resource limits, tear them down. Its default idle mode parks a worker in Atomics.wait,
// which would freeze the actors' timers and sockets, hence `atomics: 'disabled'`.
// Placement is ours: Piscina would stack every actor on one worker, so a custom load
// balancer routes each worker's attach task to that worker, and `spawn` puts a new actor
// on the live worker hosting the fewest.
//
// Memory: a worker's heap goes back to the OS only when its isolate dies, so a worker left
// with no actors after hosting many (a mass unload) is retired, once it has been empty for
// RETIRE_IDLE_MS and another worker is serving: it confirms it hosts nothing, exits, and
// Piscina starts a fresh one in its place (see retire() in ActorHostApi). Workers retire one
// at a time, so one always takes new actors.
import type { Piscina } from 'piscina';
import type { ActorEvent, ActorHostApi, ActorInit, AttachTask, PostedResumeState } from '../../common/actor-messages.js';
import type { HistorySlice } from '../../common/packed-history.js';
import { holdMainYoungGeneration, WORKER_MAX_YOUNG_GENERATION_MB } from './heap-limits.js';
import { builtin } from '../lazy-builtin.js';
import { actorHostCalls, type ActorHostCalls } from './actor-host-calls.js';
import { inOwnTurn, ownTurn } from '../own-turns.js';

type PoolRuntime = typeof import('./pool-runtime.js');

/** The main thread's handle on one live worker. */
export interface WorkerLink {
  readonly workerId: number;
  /** The worker's ActorHost methods. */
  readonly api: ActorHostCalls;
  /** Releases the comlink remote behind `api` (shutdown); later calls reject. */
  readonly release: () => void;
  readonly actors: Set<string>;
  alive: boolean;
  /** False after a call to this worker overran its deadline, until the worker answers again. */
  responsive: boolean;
  /** 'retiring': takes no new actors, and exits once it confirms it hosts none. */
  phase: 'serving' | 'retiring';
  /** Actors placed here over the worker's life: what decides whether retiring it is worth it. */
  hosted: number;
  /** The pending retirement check while the worker hosts no actor. */
  retireTimer: ReturnType<typeof setTimeout> | null;
}

/** A fenced actor's close, to be posted at the end of the event-loop iteration. */
interface PendingClose {
  link: WorkerLink;
  threadId: string;
  resolve(answer: 'closed' | 'notFound'): void;
  reject(error: unknown): void;
}

export interface ActorPoolOptions {
  size: number;
  /** Compiled worker entry (workers/thread-host.js). */
  filename: string;
  onEvent(event: ActorEvent): void;
  /** A worker died: its actors are gone. */
  onWorkerLost(threadIds: string[], reason: string): void;
  log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
  env?: Record<string, string>;
  maxOldGenerationSizeMb?: number;
  /** A worker is retired once empty only after hosting this many actors (RETIRE_AFTER_ACTORS). */
  retireAfterActors?: number;
  /** How long a worker stays empty before it is retired (RETIRE_IDLE_MS). */
  retireIdleMs?: number;
}

/** The time a worker gets to come up and attach its actor host. */
const ATTACH_TIMEOUT_MS = 10_000;
/**
 * A worker that hosted fewer actors than this keeps running when it empties: its heap has not
 * grown much (an idle actor is ~2 kB of it), and a new worker costs a start (~50 ms of CPU).
 */
export const RETIRE_AFTER_ACTORS = 1_000;
/** Long enough that a burst of unloads and a new load right after do not restart a worker. */
export const RETIRE_IDLE_MS = 2_000;

export class ActorPool {
  readonly #options: ActorPoolOptions;
  #runtime: PoolRuntime | null = null;
  #pool: Piscina | null = null;
  #starting: Promise<void> | null = null;
  readonly #links = new Map<number, WorkerLink>();
  readonly #placement = new Map<string, WorkerLink>();
  #closing = false;
  /** Closes of fenced actors waiting for the end of this event-loop iteration (fencedCloser). */
  #closesSoon: PendingClose[] = [];
  #ready: Promise<void>;
  #readyResolve!: () => void;

  constructor(options: ActorPoolOptions) {
    this.#options = options;
    this.#ready = new Promise((resolve) => (this.#readyResolve = resolve));
  }

  /**
   * `value`, marked so that a call to a worker carrying it transfers `buffers` instead of
   * copying them (they are unusable here afterwards). Before the pool's packages are loaded
   * there is no worker to call, and `value` is returned as it is.
   */
  transfer<T>(value: T, buffers: ArrayBuffer[]): T {
    return this.#runtime === null ? value : this.#runtime.Comlink.transfer(value, buffers);
  }

  /** Starts the workers in the background (idempotent); `ready()` and `spawn()` also start them. */
  warmUp(): void {
    // A host already shutting down would load the pool's packages only to close it.
    if (this.#closing) return;
    void this.#start().catch((error: unknown) => this.#options.log('error', 'starting the pool failed', { error: String(error) }));
  }

  // Two steps of the main thread's time, each a few milliseconds (loading the pool's packages,
  // then starting its workers), with a turn of the event loop between them: a request that
  // arrived meanwhile (the turn a client sends right after its first thread/start) is answered
  // between the two instead of after both.
  #start(): Promise<void> {
    this.#starting ??= import('./pool-runtime.js').then(async (runtime) => {
      this.#runtime = runtime;
      await ownTurn();
      if (this.#closing) return;
      this.#pool = this.#createPool(runtime);
    });
    return this.#starting;
  }

  #createPool({ Piscina }: PoolRuntime): Piscina {
    const options = this.#options;
    const pool = new Piscina({
      filename: options.filename,
      minThreads: options.size,
      maxThreads: options.size,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      atomics: 'disabled',
      concurrentTasksPerWorker: 1,
      // Piscina's run and wait time histograms: unread here (metrics come from the host's own
      // recorder), and creating them was ~3 ms of the main thread's pool start.
      recordTiming: false,
      loadBalancer: (task, workers) => {
        const options = (task as unknown as Record<symbol, { workerId?: number } | null>)[Piscina.queueOptionsSymbol];
        const target = options?.workerId;
        return workers.find((worker) => worker.id === target && !worker.terminating && !worker.destroyed) ?? null;
      },
      ...(options.env ? { env: options.env } : {}),
      resourceLimits: {
        maxYoungGenerationSizeMb: WORKER_MAX_YOUNG_GENERATION_MB,
        ...(options.maxOldGenerationSizeMb ? { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb } : {}),
      },
    });
    // Piscina creates its workers in its constructor and tells of each at once; each attach
    // gets a turn of the event loop of its own, so requests are answered between them.
    pool.on('workerCreate', (worker: { id: number }) => inOwnTurn(() => void this.#attach(worker.id)));
    pool.on('workerDestroy', (worker: { id: number }) => this.#lose(worker.id, 'worker exited'));
    // Piscina re-emits worker errors here; without a listener they would crash the process.
    pool.on('error', (error: Error) => this.#options.log('error', 'pool worker error', { error: error.message }));
    return pool;
  }

  /**
   * Resolves once every worker has attached, so the first actors spread over all of them;
   * past ATTACH_TIMEOUT_MS it settles for the workers that did come up.
   */
  async ready(): Promise<void> {
    await this.#start();
    try {
      await raceDeadline(this.#ready, ATTACH_TIMEOUT_MS, 'pool workers did not all come up');
    } catch (error) {
      if (this.liveWorkers === 0) throw error;
    }
  }

  get liveWorkers(): number {
    return [...this.#links.values()].filter((link) => link.alive).length;
  }

  /** Actors per live worker, by worker id. */
  placement(): Record<number, number> {
    const result: Record<number, number> = {};
    for (const link of this.#links.values()) if (link.alive) result[link.workerId] = link.actors.size;
    return result;
  }

  /** Creates an actor on the least-loaded live worker; for a cold resume, returns what it read. */
  async spawn(init: ActorInit, timeoutMs: number): Promise<PostedResumeState | null> {
    await this.ready();
    const link = this.#leastLoaded();
    if (!link) throw new Error('no live pool worker to host the thread');
    link.actors.add(init.threadId);
    link.hosted += 1;
    this.#cancelRetirement(link);
    this.#placement.set(init.threadId, link);
    this.#options.log('info', 'actor placed', { threadId: init.threadId, workerId: link.workerId });
    this.#postOwedCloses(init.threadId);
    try {
      return await raceDeadline(link.api.spawn(init), timeoutMs, `actor did not start within ${timeoutMs} ms`);
    } catch (error) {
      this.forget(init.threadId);
      throw error;
    }
  }

  /** Decodes one slice of a cold resume's history (packed-history.ts); the pool has started by then. */
  unpackHistorySlice(bytes: Uint8Array): HistorySlice {
    return this.#runtime!.unpackSlice(bytes);
  }

  /** The live worker hosting `threadId`'s actor, if any. */
  linkOf(threadId: string): WorkerLink | undefined {
    const link = this.#placement.get(threadId);
    return link?.alive ? link : undefined;
  }

  /** Asks the thread's actor to flush and close its rollout; null when no live worker hosts it. */
  closeActor(threadId: string): Promise<'closed' | 'notFound'> | null {
    return this.linkOf(threadId)?.api.close(threadId) ?? null;
  }

  /**
   * closeActor for a fenced actor (one that can no longer write, so nothing waits on its close),
   * bound to the thread's worker now and callable after the thread is forgotten. The close is
   * posted after this event-loop iteration's output has been written: a worker woken during
   * that write competes with the clients reading it for the cores (on two cores, posting it
   * first made an idle thread's `thread/closed` ~0.3 ms later). Null when no live worker hosts it.
   */
  fencedCloser(threadId: string): () => Promise<'closed' | 'notFound'> | null {
    const link = this.linkOf(threadId);
    return () => (link === undefined || !link.alive ? null : this.#closeSoon(link, threadId));
  }

  #closeSoon(link: WorkerLink, threadId: string): Promise<'closed' | 'notFound'> {
    return new Promise((resolve, reject) => {
      // setImmediate runs in order, after the output flusher's (queued by the announcement).
      if (this.#closesSoon.length === 0) setImmediate(this.#postClosesSoon);
      this.#closesSoon.push({ link, threadId, resolve, reject });
    });
  }

  readonly #postClosesSoon = (): void => {
    const closes = this.#closesSoon;
    this.#closesSoon = [];
    this.#postCloses(closes);
  };

  // A new actor for a thread whose old one still owes its close: the close goes first, so the
  // worker closes the old incarnation, not the new one registered under the same id.
  #postOwedCloses(threadId: string): void {
    const owed = this.#closesSoon.filter((close) => close.threadId === threadId);
    if (owed.length === 0) return;
    this.#closesSoon = this.#closesSoon.filter((close) => close.threadId !== threadId);
    this.#postCloses(owed);
  }

  // One message per worker: posting each close on its own cost ~0.15 ms of the main thread
  // apiece (comlink's id and message, the clone), ~5 ms for 32 threads unsubscribed at once.
  // Each close still gets its own answer: a close that failed fails alone.
  #postCloses(closes: PendingClose[]): void {
    const byWorker = new Map<WorkerLink, PendingClose[]>();
    for (const close of closes) {
      const batch = byWorker.get(close.link);
      if (batch === undefined) byWorker.set(close.link, [close]);
      else batch.push(close);
    }
    for (const [link, batch] of byWorker) {
      // A pool shutting down has released its proxies; the worker's exit closes the files.
      if (!link.alive || this.#closing) {
        for (const close of batch) close.resolve('notFound');
        continue;
      }
      const rejectAll = (error: unknown): void => {
        for (const close of batch) close.reject(error);
      };
      try {
        link.api.closeMany(batch.map((close) => close.threadId)).then((answers) => {
          batch.forEach((close, index) => {
            const answer = answers[index];
            if (answer === 'closed' || answer === 'notFound') close.resolve(answer);
            else close.reject(new Error(`the actor of ${close.threadId} failed to close its rollout`));
          });
        }, rejectAll);
      } catch (error) {
        rejectAll(error);
      }
    }
  }

  /** Drops the main thread's record of an actor (after it closed or its worker died). */
  forget(threadId: string): void {
    const link = this.#placement.get(threadId);
    this.#placement.delete(threadId);
    if (link === undefined) return;
    link.actors.delete(threadId);
    if (link.actors.size === 0) this.#scheduleRetirement(link);
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const link of this.#links.values()) this.#cancelRetirement(link);
    for (const link of this.#links.values()) link.release();
    if (this.#pool) await raceDeadline(this.#pool.destroy(), 5_000, 'pool did not stop').catch(() => undefined);
  }

  /**
   * Notes that the worker hosting `threadId` missed a deadline (blocked or stuck): new actors
   * avoid it until it answers a ping again.
   */
  reportUnresponsive(threadId: string): void {
    this.#markUnresponsive(this.#placement.get(threadId), threadId);
  }

  /** The same report, bound now to the worker hosting the thread, for use after it is forgotten. */
  unresponsiveReporter(threadId: string): () => void {
    const link = this.#placement.get(threadId);
    return () => this.#markUnresponsive(link, threadId);
  }

  #markUnresponsive(link: WorkerLink | undefined, threadId: string): void {
    if (!link || !link.alive || !link.responsive) return;
    link.responsive = false;
    this.#options.log('warn', 'pool worker unresponsive; placing new actors elsewhere', { workerId: link.workerId, threadId });
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

  #scheduleRetirement(link: WorkerLink): void {
    const { retireAfterActors = RETIRE_AFTER_ACTORS, retireIdleMs = RETIRE_IDLE_MS } = this.#options;
    if (this.#closing || !link.alive || link.hosted < retireAfterActors || link.retireTimer !== null) return;
    link.retireTimer = setTimeout(() => {
      link.retireTimer = null;
      void this.#tryRetire(link);
    }, retireIdleMs);
    // Retiring is housekeeping: it must not keep the process alive.
    link.retireTimer.unref();
  }

  #cancelRetirement(link: WorkerLink): void {
    if (link.retireTimer !== null) clearTimeout(link.retireTimer);
    link.retireTimer = null;
  }

  // Only an empty worker, and only while another serves: new actors never wait for a worker
  // to start. One that another retirement or a slow close holds up is checked again later.
  async #tryRetire(link: WorkerLink): Promise<void> {
    if (this.#closing || !link.alive || link.phase !== 'serving' || link.actors.size > 0) return;
    const others = [...this.#links.values()].filter((other) => other !== link && other.alive);
    if (others.some((other) => other.phase === 'retiring') || !others.some((other) => other.phase === 'serving')) {
      this.#scheduleRetirement(link);
      return;
    }
    link.phase = 'retiring';
    // No deadline: a late 'retiring' still ends the worker, so it must not take actors before
    // its answer; one that never answers is stuck, and no actor belongs there either.
    const answer = await link.api.retire().catch(() => 'failed' as const);
    if (answer === 'retiring') return; // its port closes as it exits: #lose finishes the job
    this.#options.log('info', 'pool worker not retired', { workerId: link.workerId, answer });
    link.phase = 'serving';
    if (link.actors.size === 0) this.#scheduleRetirement(link);
  }

  async #attach(workerId: number): Promise<void> {
    const pool = this.#pool;
    const { Piscina, Comlink, nodeEndpoint } = this.#runtime!;
    if (this.#closing || pool === null) return;
    const { MessageChannel } = builtin<typeof import('node:worker_threads')>('node:worker_threads');
    const host = new MessageChannel();
    const events = new MessageChannel();
    const task: AttachTask & { [key: symbol]: unknown } = {
      kind: 'attach',
      hostPort: host.port2,
      eventPort: events.port2,
      [Piscina.queueOptionsSymbol]: { workerId },
    };
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), ATTACH_TIMEOUT_MS);
    try {
      await pool.run(task, { transferList: [host.port2, events.port2], signal: abort.signal });
    } catch (error) {
      host.port1.close();
      events.port1.close();
      if (!this.#closing) this.#options.log('error', 'attaching a pool worker failed', { workerId, error: String(error) });
      return;
    } finally {
      clearTimeout(timer);
    }
    const { api, release } = actorHostCalls(Comlink.wrap<ActorHostApi>(nodeEndpoint(host.port1 as never)), Comlink.releaseProxy);
    const link: WorkerLink = {
      workerId,
      api,
      release,
      actors: new Set(),
      alive: true,
      responsive: true,
      phase: 'serving',
      hosted: 0,
      retireTimer: null,
    };
    events.port1.on('message', (event: ActorEvent) => {
      try {
        this.#options.onEvent(event);
      } catch (error) {
        this.#options.log('error', 'bad actor event', { workerId, error: String(error) });
      }
    });
    // A port closes when its worker exits, even when Piscina has not noticed yet.
    host.port1.on('close', () => this.#lose(workerId, 'worker port closed'));
    // Ports must not keep the process alive: shutdown is decided by the transport.
    host.port1.unref();
    events.port1.unref();
    this.#links.set(workerId, link);
    // Node applies the process's V8 flags again as it starts a worker.
    holdMainYoungGeneration();
    // liveWorkers against size shows a replaced worker bringing the pool back to strength.
    this.#options.log('info', 'pool worker ready', { workerId, liveWorkers: this.liveWorkers, size: this.#options.size });
    if (this.liveWorkers >= this.#options.size) this.#readyResolve();
  }

  #lose(workerId: number, reason: string): void {
    const link = this.#links.get(workerId);
    if (!link || !link.alive) return;
    link.alive = false;
    this.#cancelRetirement(link);
    this.#links.delete(workerId);
    const orphans = [...link.actors];
    for (const threadId of orphans) this.#placement.delete(threadId);
    link.actors.clear();
    if (link.phase === 'retiring' && orphans.length === 0) {
      this.#options.log('info', 'pool worker retired', { workerId, hosted: link.hosted, liveWorkers: this.liveWorkers, size: this.#options.size });
    } else if (!this.#closing) {
      this.#options.log('warn', 'pool worker lost', { workerId, reason, threadIds: orphans, liveWorkers: this.liveWorkers, size: this.#options.size });
      if (orphans.length > 0) this.#options.onWorkerLost(orphans, reason);
    }
  }
}

/** Rejects with `message` unless `work` settles within `ms`. */
export function raceDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
