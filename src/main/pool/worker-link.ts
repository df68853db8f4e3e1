// Attaching a pool worker: the main thread's handle on one live worker, made once Piscina has
// started it. Each worker runs one ActorHost that multiplexes the actors placed on it; the
// main thread reaches it with comlink over one MessagePort, and receives its actors' events on
// a second.
import type { Piscina } from 'piscina';
import type { ActorEvent, ActorHostApi, AttachTask } from '../../common/actor-messages.js';
import { builtin } from '../lazy-builtin.js';
import { actorHostCalls, type ActorHostCalls } from './actor-host-calls.js';

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

/** The time a worker gets to come up and attach its actor host. */
export const ATTACH_TIMEOUT_MS = 10_000;

export interface AttachOptions {
  onEvent(event: ActorEvent): void;
  /** The worker's port closed: it exited, even when Piscina has not noticed yet. */
  onPortClosed(workerId: number): void;
  /** True once the pool is shutting down: a failed attach is then expected, not logged. */
  closing(): boolean;
  log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
}

/**
 * Runs the attach task on worker `workerId` (the pool's load balancer routes it there) and
 * returns the link to it; null when the attach failed or timed out (logged).
 */
export async function attachWorker(pool: Piscina, runtime: PoolRuntime, workerId: number, options: AttachOptions): Promise<WorkerLink | null> {
  const { Piscina, Comlink, nodeEndpoint } = runtime;
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
    if (!options.closing()) options.log('error', 'attaching a pool worker failed', { workerId, error: String(error) });
    return null;
  } finally {
    clearTimeout(timer);
  }
  const { api, release } = actorHostCalls(Comlink.wrap<ActorHostApi>(nodeEndpoint(host.port1 as never)), Comlink.releaseProxy);
  events.port1.on('message', (event: ActorEvent) => {
    try {
      options.onEvent(event);
    } catch (error) {
      options.log('error', 'bad actor event', { workerId, error: String(error) });
    }
  });
  host.port1.on('close', () => options.onPortClosed(workerId));
  // Ports must not keep the process alive: shutdown is decided by the transport.
  host.port1.unref();
  events.port1.unref();
  return { workerId, api, release, actors: new Set(), alive: true, responsive: true, phase: 'serving', hosted: 0, retireTimer: null };
}
