// Graceful shutdown, in reverse order of start, with a deadline on every stage: stop reading
// input, answer requests already in flight, interrupt running turns, unload every thread
// (flush rollouts, release writer locks), flush output, drop the connections, stop the pool.
import { systemClock } from '../../common/clock.js';
import type { HostContext } from '../host-context.js';
import { withDeadline } from '../threads/unloader.js';
import type { Transport } from '../transport/transport.js';
import { waitUntil } from '../wait-until.js';

// Whole-shutdown budget: answer in-flight requests, interrupt turns, unload threads.
const SHUTDOWN_DEADLINE_MS = 5_000;
// Part of that budget given to requests already in flight when shutdown starts.
const IN_FLIGHT_DRAIN_MS = 2_000;
// How long an asynchronous lock backend gets to finish an attempt in flight (a few syscalls).
const LOCKS_SETTLE_MS = 1_000;
// How long the last replies and notifications get to reach the client.
const OUTPUT_FLUSH_MS = 1_000;

/** Runs the shutdown once; later calls return the first one's promise. */
export type Shutdown = (why: string) => Promise<void>;

export function createShutdown(ctx: HostContext, transport: Transport, stopStats: () => void): Shutdown {
  let running: Promise<void> | null = null;
  return (why) => (running ??= run(ctx, transport, stopStats, why));
}

async function run(ctx: HostContext, transport: Transport, stopStats: () => void, why: string): Promise<void> {
  ctx.draining = true;
  transport.stopAccepting();
  ctx.log('info', 'shutting down', { why, loaded: ctx.directory.loadedCount });
  // Worker ports and lock timers are unref'd, and after stdin EOF nothing else holds the
  // event loop: without this handle Node would exit before the unloads finish.
  const keepAlive = setTimeout(() => undefined, SHUTDOWN_DEADLINE_MS + 5_000);
  const work = (async () => {
    // Requests already accepted (a thread/start still waiting for the pool, say) get their
    // answer before the threads go.
    await waitUntil(() => ctx.connections.inFlightTotal() === 0, IN_FLIGHT_DRAIN_MS);
    for (const thread of ctx.directory.all()) {
      if (thread.runningTurnId) ctx.pool.linkOf(thread.id)?.api.interrupt(thread.id, thread.runningTurnId).catch(() => undefined);
    }
    await ctx.supervisor.unloadAll('shutdown');
  })();
  await withDeadline(work, SHUTDOWN_DEADLINE_MS, systemClock);
  ctx.supervisor.stop();
  stopStats();
  ctx.locks.close();
  // An attempt at coordination still in flight (lockfile backend) gives it back before the
  // host reports itself stopped, so nothing of this process is left on the home after that.
  if (ctx.locks.settled) await withDeadline(ctx.locks.settled(), LOCKS_SETTLE_MS, systemClock);
  await transport.flush(OUTPUT_FLUSH_MS);
  transport.close();
  await Promise.all([ctx.pool.close(), ctx.storedHistory.close()]);
  clearTimeout(keepAlive);
}
