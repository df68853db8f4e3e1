// Hosts thread actors in a Piscina pool of worker threads (2 by default, mirroring the
// reference's TOKIO_WORKER_THREADS=2). This file starts the pool and is the one surface the
// rest of the host uses; each of its jobs lives beside it:
//   worker-link.ts        attaching a worker: the comlink link for commands, the event port
//   actor-placement.ts    which worker hosts which actor, and where a new one goes
//   worker-retirement.ts  replacing a worker emptied after hosting many (its heap goes back)
//   close-batcher.ts      fenced actors' closes, after the output, one message per worker
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
// Placement is ours: a custom load balancer routes each worker's attach task to that worker.
import type { Piscina } from 'piscina';
import type { ActorEvent, ActorInit, PostedResumeState } from '../../common/actor-messages.js';
import type { HistorySlice } from '../../common/packed-history.js';
import { holdMainYoungGeneration, WORKER_MAX_YOUNG_GENERATION_MB } from './heap-limits.js';
import { ensureFileThreadsStarted } from '../file-threads.js';
import { inOwnIteration, ownIteration } from '../scheduling.js';
import { ActorPlacement } from './actor-placement.js';
import { CloseBatcher } from './close-batcher.js';
import { systemClock } from '../../common/clock.js';
import { failWith, withDeadline } from '../../common/deadline.js';
import { ATTACH_TIMEOUT_MS, attachWorker, type WorkerLink } from './worker-link.js';
import { WorkerRetirement } from './worker-retirement.js';

type PoolRuntime = typeof import('./pool-runtime.js');

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

export class ActorPool {
  readonly #options: ActorPoolOptions;
  #runtime: PoolRuntime | null = null;
  #pool: Piscina | null = null;
  #starting: Promise<void> | null = null;
  #closing = false;
  readonly #retirement: WorkerRetirement;
  readonly #placement: ActorPlacement;
  readonly #closes = new CloseBatcher(() => this.#closing);
  #ready: Promise<void>;
  #readyResolve!: () => void;

  constructor(options: ActorPoolOptions) {
    this.#options = options;
    this.#ready = new Promise((resolve) => (this.#readyResolve = resolve));
    this.#retirement = new WorkerRetirement({
      retireAfterActors: options.retireAfterActors,
      retireIdleMs: options.retireIdleMs,
      links: () => this.#placement.links(),
      closing: () => this.#closing,
      log: options.log,
    });
    this.#placement = new ActorPlacement(options.log, (link) => this.#retirement.schedule(link));
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

  // Two steps of the main thread's time (loading the pool's packages, then starting its
  // workers; bench case `start-under-lock`), with an event-loop iteration between them: a
  // request that arrived meanwhile (the turn/start a client sends right after its first
  // thread/start) is answered between the two instead of after both.
  #start(): Promise<void> {
    this.#starting ??= import('./pool-runtime.js').then(async (runtime) => {
      this.#runtime = runtime;
      await ownIteration();
      if (this.#closing) return;
      ensureFileThreadsStarted();
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
      // recorder), and creating them was a visible part of the main thread's pool start
      // (bench case `cold-start`).
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
    // gets an event-loop iteration of its own, so requests are answered between them.
    pool.on('workerCreate', (worker: { id: number }) => inOwnIteration(() => void this.#attach(worker.id)));
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
      await withDeadline(this.#ready, ATTACH_TIMEOUT_MS, systemClock, failWith('pool workers did not all come up'));
    } catch (error) {
      if (this.liveWorkers === 0) throw error;
    }
  }

  get liveWorkers(): number {
    return this.#placement.liveWorkers;
  }

  /** Actors per live worker, by worker id. */
  placement(): Record<number, number> {
    return this.#placement.counts();
  }

  /** Creates an actor on the least-loaded live worker; for a cold resume, returns what it read. */
  async spawn(init: ActorInit, timeoutMs: number): Promise<PostedResumeState | null> {
    await this.ready();
    const link = this.#placement.place(init.threadId);
    if (!link) throw new Error('no live pool worker to host the thread');
    this.#retirement.cancel(link);
    this.#closes.postOwed(init.threadId);
    try {
      return await withDeadline(link.api.spawn(init), timeoutMs, systemClock, failWith(`actor did not start within ${timeoutMs} ms`));
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
    const link = this.#placement.placedOn(threadId);
    return link?.alive ? link : undefined;
  }

  /** Asks the thread's actor to flush and close its rollout; null when no live worker hosts it. */
  closeActor(threadId: string): Promise<'closed' | 'notFound'> | null {
    return this.linkOf(threadId)?.api.close(threadId) ?? null;
  }

  /**
   * closeActor for a fenced actor (one that can no longer write, so nothing waits on its close),
   * bound to the thread's worker now and callable after the thread is forgotten. The close is
   * posted after this event-loop iteration's output has been written (close-batcher.ts). Null
   * when no live worker hosts it.
   */
  fencedCloser(threadId: string): () => Promise<'closed' | 'notFound'> | null {
    const link = this.linkOf(threadId);
    return () => (link === undefined || !link.alive ? null : this.#closes.closeSoon(link, threadId));
  }

  /** Drops the main thread's record of an actor (after it closed or its worker died). */
  forget(threadId: string): void {
    this.#placement.forget(threadId);
  }

  async close(): Promise<void> {
    this.#closing = true;
    for (const link of this.#placement.links()) this.#retirement.cancel(link);
    for (const link of this.#placement.links()) link.release();
    if (this.#pool) await withDeadline(this.#pool.destroy(), 5_000, systemClock, () => undefined).catch(() => undefined);
  }

  /**
   * Notes that the worker hosting `threadId` missed a deadline (blocked or stuck): new actors
   * avoid it until it answers a ping again.
   */
  reportUnresponsive(threadId: string): void {
    this.#placement.markUnresponsive(this.#placement.placedOn(threadId), threadId);
  }

  /** The same report, bound now to the worker hosting the thread, for use after it is forgotten. */
  unresponsiveReporter(threadId: string): () => void {
    const link = this.#placement.placedOn(threadId);
    return () => this.#placement.markUnresponsive(link, threadId);
  }

  async #attach(workerId: number): Promise<void> {
    const pool = this.#pool;
    if (this.#closing || pool === null) return;
    const link = await attachWorker(pool, this.#runtime!, workerId, {
      onEvent: (event) => this.#options.onEvent(event),
      onPortClosed: (id) => this.#lose(id, 'worker port closed'),
      closing: () => this.#closing,
      log: (level, message, fields) => this.#options.log(level, message, fields),
    });
    if (link === null) return;
    this.#placement.attached(link);
    // Node applies the process's V8 flags again as it starts a worker.
    holdMainYoungGeneration();
    // liveWorkers against size shows a replaced worker bringing the pool back to strength.
    this.#options.log('info', 'pool worker ready', { workerId, liveWorkers: this.liveWorkers, size: this.#options.size });
    if (this.liveWorkers >= this.#options.size) this.#readyResolve();
  }

  #lose(workerId: number, reason: string): void {
    const lost = this.#placement.lose(workerId);
    if (lost === null) return;
    const { link, orphans } = lost;
    this.#retirement.cancel(link);
    if (link.phase === 'retiring' && orphans.length === 0) {
      this.#options.log('info', 'pool worker retired', { workerId, hosted: link.hosted, liveWorkers: this.liveWorkers, size: this.#options.size });
    } else if (!this.#closing) {
      this.#options.log('warn', 'pool worker lost', { workerId, reason, threadIds: orphans, liveWorkers: this.liveWorkers, size: this.#options.size });
      if (orphans.length > 0) this.#options.onWorkerLost(orphans, reason);
    }
  }
}
