// Graceful shutdown, in reverse order of start, with a deadline on every stage: stop reading
// input, answer requests already in flight, interrupt running turns, unload every thread
// (flush rollouts, release writer locks, write the read states they moved and mirror what is
// mirrored), stop reporting and the locks, flush output, drop the connections, stop the pool
// and the stored-history workers, remove the listener's files.
import { systemClock } from '../../common/clock.js';
import { settledWithin } from '../../common/deadline.js';
import type { HostContext } from '../host-context.js';
import { outputFlushed } from '../scheduling.js';
import type { Transport } from '../transport/transport.js';
import { waitUntil } from '../wait-until.js';

// Whole-shutdown budget: answer in-flight requests, interrupt turns, unload threads.
const SHUTDOWN_DEADLINE_MS = 5_000;
// Part of that budget given to requests already in flight when shutdown starts.
const IN_FLIGHT_DRAIN_MS = 2_000;
// How long an asynchronous lock backend gets to finish an attempt in flight (a few syscalls).
const LOCKS_SETTLE_MS = 1_000;
// How long the MCP sessions get to close before their processes are killed anyway.
const MCP_CLOSE_MS = 2_000;
// How long the thread store gets to retire this host and close its connections.
const STORE_CLOSE_MS = 3_000;
// How long the last replies and notifications get to reach the client.
const OUTPUT_FLUSH_MS = 1_000;

/**
 * The host's one shutdown sequence, used by every way the process ends: a signal, the end of
 * stdin (stdio's one client going), and a start-up that fails after the host was built. What
 * the host serves is registered as it comes up; a stage whose part never came up is skipped.
 */
export class HostShutdown {
  #transport: Transport | null = null;
  #releaseListener: () => void = () => undefined;
  #running: Promise<void> | null = null;

  constructor(
    private readonly ctx: HostContext,
    /** Stops the stats reporter and metrics: after the unloads, before the locks close. */
    private readonly stopReporting: () => void,
  ) {}

  /** A socket listener was created: its files (a unix socket's) are removed at the end. */
  listenerCreated(release: () => void): void {
    this.#releaseListener = release;
  }

  /** The transport serves clients: it stops accepting first, and is flushed and closed last. */
  serving(transport: Transport): void {
    this.#transport = transport;
  }

  /** Runs the sequence once; later calls return the first one's promise. */
  run(why: string): Promise<void> {
    return (this.#running ??= this.#run(why));
  }

  async #run(why: string): Promise<void> {
    const { ctx } = this;
    const transport = this.#transport;
    ctx.draining = true;
    transport?.stopAccepting();
    ctx.log('info', 'shutting down', { why, loaded: ctx.directory.loadedCount });
    // Worker ports and lock timers are unref'd, and after stdin EOF nothing else holds the
    // event loop: without this handle Node would exit before the unloads finish.
    const keepAlive = setTimeout(() => undefined, SHUTDOWN_DEADLINE_MS + 5_000);
    const work = (async () => {
      // A command/exec reply waits for its command, which would hold the drain below: they go first.
      ctx.shell.exec.killAll();
      // Requests already accepted (a thread/start still waiting for the pool, say) get their
      // answer before the threads go.
      await waitUntil(() => ctx.connections.inFlightTotal() === 0, IN_FLIGHT_DRAIN_MS);
      for (const thread of ctx.directory.all()) {
        if (thread.runningTurnId === null) continue;
        ctx.pool.linkOf(thread.id)?.api.interrupt(thread.id, thread.runningTurnId).catch(() => undefined);
        // A tool call it waits for is cancelled, so the interrupted turn ends now.
        ctx.serverRequests.cancelTurn(thread.id, thread.runningTurnId);
      }
      // Every command's process group goes now; the interrupted turns get their answers.
      await ctx.shell.killAll();
      await ctx.supervisor.unloadAll('shutdown');
      // The read states the last turn ends moved are stored before the process goes, and what
      // the store projects of them elsewhere (each step has its store's own deadline).
      await ctx.store.settled();
    })();
    await settledWithin(work, SHUTDOWN_DEADLINE_MS, systemClock);
    // Every MCP session stops: each stdio server's process group is killed.
    await settledWithin(ctx.mcp.close(), MCP_CLOSE_MS, systemClock);
    ctx.supervisor.stop();
    this.stopReporting();
    ctx.locks.close();
    // An attempt at coordination still in flight (lockfile backend) gives it back before the
    // host reports itself stopped, so nothing of this process is left on the home after that.
    if (ctx.locks.settled) await settledWithin(ctx.locks.settled(), LOCKS_SETTLE_MS, systemClock);
    // A fleet's host leaves it now, so the threads it released are free for the others at once.
    await settledWithin(ctx.store.close(), STORE_CLOSE_MS, systemClock);
    if (transport !== null) {
      // Notifications still staggered over later iterations (staggered-output.ts) reach the
      // sockets first: this waits for the last chunk.
      await settledWithin(outputFlushed(), OUTPUT_FLUSH_MS, systemClock);
      await transport.flush(OUTPUT_FLUSH_MS);
      transport.close();
    }
    await Promise.all([ctx.pool.close(), ctx.storedHistory.close()]);
    this.#releaseListener();
    clearTimeout(keepAlive);
  }
}
