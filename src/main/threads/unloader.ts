// The one unload sequence. Every way a thread leaves memory comes through here: the idle rule
// (supervisor), shutdown, a worker that died, a load that failed half way. Read it top to
// bottom; every wait has a deadline and nothing waits on a lock:
//
//   mark unloading (first reason wins)
//     0. a new thread whose actor is still being placed: wait for the placement (deadline)
//     1. close the actor: it flushes and closes its rollout (deadline; a stuck or dead worker
//        is abandoned, its late answer ignored). On an idle unload, an actor that is quiet (no
//        turn queued or running, nothing owed, its rollout in place) is fenced instead: it can
//        never write again, so the steps below run at once and its close is posted after the
//        announcement has been written, finishing in the background.
//     2. release the writer lock (one non-blocking try; a leftover file goes to the janitor;
//        a leftover that keeps other hosts out, a lockfile directory, gets a short wait)
//     3. forget the thread: out of the directory and the pool's placement
//     4. announce `notLoaded`, then `thread/closed` (only for a thread clients saw loaded;
//        not for an archived, deleted or reverted one)
//   unloaded
import type { Clock } from '../../common/clock.js';
import { existsSync } from 'node:fs';
import { settledWithin } from '../../common/deadline.js';
import type { LogFn } from '../../common/log.js';
import type { WriterLockBackend } from '../store/writer-lock-backend.js';
import type { ThreadDirectory } from './directory.js';
import type { UnloadReason } from './lifecycle.js';
import type { LoadedThread } from './loaded-thread.js';
import type { HostRecorder } from '../metrics/host-recorder.js';

/** How an unload ended: the actor confirmed (or had none), or it was abandoned at the deadline. */
export type UnloadOutcome = 'complete' | 'actorTimedOut' | 'actorFailed';

/** The pool's side of an unload (ActorPool implements it). */
export interface ActorControl {
  /** Asks the thread's actor to flush and close; null when no live actor hosts the thread. */
  closeActor(threadId: string): Promise<unknown> | null;
  /** The actor missed its close deadline: its worker is presumed stuck. */
  reportUnresponsive(threadId: string): void;
  /** reportUnresponsive bound to the thread's worker now, callable after the thread is forgotten. */
  unresponsiveReporter(threadId: string): () => void;
  /**
   * closeActor for a fenced actor, bound to its worker now and callable after the thread is
   * forgotten; the close may be posted later (after this iteration's output).
   */
  fencedCloser(threadId: string): () => Promise<unknown> | null;
  /** Drops the pool's record of the thread's actor. */
  forget(threadId: string): void;
}

/** Where the unload is announced (Outgoing implements it). */
export interface Announcer {
  broadcast(method: string, params: unknown): void;
}

export interface UnloaderDeps {
  clock: Clock;
  directory: ThreadDirectory;
  actors: ActorControl;
  locks: Pick<WriterLockBackend, 'release' | 'cleared'>;
  announcer: Announcer;
  /** Deadline for the actor to flush and close its rollout. */
  actorCloseTimeoutMs: number;
  log: LogFn;
  /** Told each unload's reason, outcome and duration (metrics). */
  recorder?: Pick<HostRecorder, 'unloaded'>;
  /** The thread is gone from this host: what it held elsewhere (its MCP sessions' leases) goes too. */
  forgotten?: (threadId: string) => void;
}

type ActorClosed = 'done' | 'noActor' | 'failed' | 'timedOut';

// How long an unload waits for a released lockfile directory to be removed, so that a client
// who sees thread/closed and resumes on another host finds the thread free. An uncontended
// removal is a few round trips even on a network home; under contention the unload goes on
// and the janitor finishes later (the seed scenario: unload never waits on coordination).
const LOCK_CLEAR_WAIT_MS = 250;

export class Unloader {
  readonly #deps: UnloaderDeps;
  readonly #running = new Map<LoadedThread, Promise<UnloadOutcome>>();
  /** Closes of fenced actors still in flight: their threads are gone, their files not yet closed. */
  readonly #fencedCloses = new Set<Promise<void>>();

  constructor(deps: UnloaderDeps) {
    this.#deps = deps;
  }

  /**
   * Unloads `thread`. Idempotent: a second call returns the first call's promise, so the first
   * reason wins. A thread without a live actor (a failed load, a dead worker) finishes
   * synchronously, before this returns.
   */
  unload(thread: LoadedThread, reason: UnloadReason): Promise<UnloadOutcome> {
    const running = this.#running.get(thread);
    if (running) return running;
    if (thread.lifecycle.kind === 'unloaded') return Promise.resolve('complete');
    // Only a thread that clients saw loaded is announced; a failed load was never listed.
    const announce = thread.lifecycle.kind === 'loaded';
    thread.unloadStarted(reason, this.#deps.clock.now());
    const outcome = this.#run(thread, reason, announce);
    this.#running.set(thread, outcome);
    void outcome.finally(() => this.#running.delete(thread));
    return outcome;
  }

  /** Settles when the first unload now running ends; null when none is running. */
  anyFinished(): Promise<UnloadOutcome> | null {
    return this.#running.size === 0 ? null : Promise.race(this.#running.values());
  }

  /**
   * Unloads every thread given, waiting for unloads already running too (they keep their
   * reason), and then for the closes of actors fenced by earlier idle unloads: the pool is
   * stopped right after a shutdown's unloads, and a close it cut off would leave its actor's
   * file open to the end and log a failed close for a thread that lost nothing.
   */
  async unloadAll(threads: LoadedThread[], reason: UnloadReason): Promise<UnloadOutcome[]> {
    const loaded = threads.filter((thread) => thread.lifecycle.kind === 'loaded');
    const outcomes = await Promise.all([...this.#running.values(), ...loaded.map((thread) => this.unload(thread, reason))]);
    // Each has its own deadline (actorCloseTimeoutMs); the set empties as they settle.
    await Promise.all(this.#fencedCloses);
    return outcomes;
  }

  async #run(thread: LoadedThread, reason: UnloadReason, announce: boolean): Promise<UnloadOutcome> {
    const startedAt = this.#deps.clock.now();
    // A new thread's actor still being placed (thread/start answers first): its close must
    // find it. A placement that fails unloads the thread itself, after clearing this.
    if (thread.actorPlacement !== null) await settledWithin(thread.actorPlacement, this.#deps.actorCloseTimeoutMs, this.#deps.clock);
    // Shutdown keeps waiting: the pool is destroyed right after, and the actor should have
    // closed its own file by then.
    const fenced = reason === 'idle' && announce && this.#tryFence(thread);
    const closeFenced = fenced ? this.#fencedClose(thread) : null;
    const closing = fenced ? null : this.#deps.actors.closeActor(thread.id);
    let closed: ActorClosed = 'noActor';
    if (closing !== null) closed = await this.#closeActor(thread, closing);
    const clearing = this.#releaseWriterLock(thread);
    if (clearing !== null) await settledWithin(clearing, LOCK_CLEAR_WAIT_MS, this.#deps.clock);
    this.#forget(thread, reason);
    if (announce) this.#announce(thread, reason);
    closeFenced?.();
    const outcome: UnloadOutcome = closed === 'timedOut' ? 'actorTimedOut' : closed === 'failed' ? 'actorFailed' : 'complete';
    this.#deps.log('info', 'thread unloaded', { threadId: thread.id, reason, outcome });
    this.#deps.recorder?.unloaded(reason, outcome, this.#deps.clock.now() - startedAt);
    return outcome;
  }

  // Step 1, fast: nothing the actor could still write may be lost or land after the release.
  // A turn queued or running (pendingTurns), or lines owed by a failed write, keep the fence
  // ACTIVE; a rollout deleted under the thread needs the actor to recreate it from its open
  // file, so a missing file takes the slow path (one stat, from the dentry cache).
  #tryFence(thread: LoadedThread): boolean {
    const fence = thread.fence;
    if (fence === null || thread.pendingTurns > 0) return false;
    const path = thread.identity?.path ?? null;
    if (thread.materialized && path !== null && !existsSync(path)) return false;
    return fence.tryFence();
  }

  // Step 1 of a fenced unload, bound to the thread's worker now and run after the announcement:
  // nothing waits on it. The thread is forgotten before it settles, so a late or missing answer
  // is only logged: the pool's placement may already belong to a new incarnation of the thread.
  #fencedClose(thread: LoadedThread): () => void {
    const { clock, actorCloseTimeoutMs, log, actors } = this.#deps;
    const reportStuck = actors.unresponsiveReporter(thread.id);
    const close = actors.fencedCloser(thread.id);
    return () => {
      const closing = close();
      if (closing === null) return;
      const settled = settledWithin(closing, actorCloseTimeoutMs, clock).then((closed) => {
        this.#fencedCloses.delete(settled);
        // Its worker is presumed stuck, as in the waiting path: new actors go elsewhere.
        if (closed === 'timedOut') reportStuck();
        if (closed !== 'done') log('warn', 'a fenced actor did not close its rollout cleanly', { threadId: thread.id, outcome: closed });
      });
      this.#fencedCloses.add(settled);
    };
  }

  // Step 1. The worker may be stuck or gone; ownership is released below regardless, so no
  // other process is kept out of the thread by a worker that does not answer.
  async #closeActor(thread: LoadedThread, closing: Promise<unknown>): Promise<ActorClosed> {
    const { clock, actorCloseTimeoutMs } = this.#deps;
    const closed = await settledWithin(closing, actorCloseTimeoutMs, clock);
    if (closed === 'timedOut') this.#deps.actors.reportUnresponsive(thread.id);
    if (closed !== 'done') {
      const why = closed === 'timedOut' ? `did not close its rollout within ${actorCloseTimeoutMs} ms` : 'failed to close its rollout';
      this.#deps.log('warn', `actor ${why}; finishing unload from the main thread`, { threadId: thread.id, outcome: closed });
    }
    return closed;
  }

  // Step 2. The release itself is synchronous and never waits. What it returns is the lock's
  // leftover being cleared, for a backend whose leftovers keep other hosts out; null otherwise.
  #releaseWriterLock(thread: LoadedThread): Promise<void> | null {
    const lock = thread.writerLockReleased();
    if (lock === null) return null;
    try {
      const result = this.#deps.locks.release(lock);
      return result === 'leftBehind' && this.#deps.locks.cleared ? this.#deps.locks.cleared(lock) : null;
    } catch (error) {
      this.#deps.log('error', 'releasing the writer lock failed', { threadId: thread.id, error: String(error) });
      return null;
    }
  }

  // Step 3. Removes only this incarnation: a newer one registered under the same id stays.
  #forget(thread: LoadedThread, reason: UnloadReason): void {
    this.#deps.directory.remove(thread);
    this.#deps.actors.forget(thread.id);
    thread.unloaded(reason);
    this.#deps.forgotten?.(thread.id);
  }

  // Step 4. An archived or deleted thread is announced as the reference announces it:
  // `notLoaded`, then `thread/archived` or `thread/deleted` (sent by the handler), no `thread/closed`;
  // a reverted or resettled one, loaded again at once, gets `notLoaded` only (thread-revert.ts,
  // thread-resume.ts).
  #announce(thread: LoadedThread, reason: UnloadReason): void {
    try {
      this.#deps.announcer.broadcast('thread/status/changed', { threadId: thread.id, status: { type: 'notLoaded' } });
      if (!QUIET_REASONS.includes(reason)) this.#deps.announcer.broadcast('thread/closed', { threadId: thread.id });
    } catch (error) {
      this.#deps.log('error', 'announcing an unload failed', { threadId: thread.id, error: String(error) });
    }
  }
}

// Unloads announced with `notLoaded` alone, no `thread/closed`.
const QUIET_REASONS: readonly UnloadReason[] = ['archived', 'deleted', 'reverted', 'resettled'];
