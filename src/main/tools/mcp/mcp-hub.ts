// The host's MCP client hub: one session per launch identity, leased by threads. A thousand
// threads with one configured server share one session (one process); a session starts on
// first use and stops `LINGER_MS` after its last lease is released, so a thread unloaded and
// resumed at once finds its server still running.
import type { ReadResourceResult, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { systemClock, type Clock } from '../../../common/clock.js';
import { CallDeadline, DeadlineReason } from './call-deadline.js';
import type { LaunchIdentity, McpLaunch } from './mcp-launch.js';
import { McpSession, type StartupStatus } from './mcp-session.js';
import { MAX_RESTART_DELAY_MS } from './restart-backoff.js';
import { callTool, listResources, readResource, type CallToolOptions, type RequestOptions } from './session-requests.js';
import type { McpToolCallResult } from './tool-call-result.js';
import { filterTools } from './tool-filter.js';
import { serverStatus, type McpServerStatus } from './server-status.js';

// Long enough for an unload followed by a resume, or a burst of short-lived threads, to keep
// the process; short enough that an unused server does not hold memory for long.
export const LINGER_MS = 10_000;

/** A thread's hold on a session; released on the thread's unload. */
export interface McpLease {
  readonly threadId: string;
  readonly launch: McpLaunch;
}

/** A startup status change, with the threads that lease the session at that moment. */
export interface McpStartupEvent {
  name: string;
  identity: LaunchIdentity;
  threadIds: string[];
  status: StartupStatus['status'];
  error: string | null;
}

/** The hub's inputs; all optional. */
export interface McpHubOptions {
  clock?: Clock;
  lingerMs?: number;
  onStartupStatus?: (event: McpStartupEvent) => void;
}

interface Entry {
  session: McpSession;
  leases: Set<Lease>;
  linger: unknown;
}

class Lease implements McpLease {
  released = false;
  constructor(
    readonly threadId: string,
    readonly launch: McpLaunch,
  ) {}
}

/** Sessions by launch identity, and the leases that hold them. */
export class McpHub {
  readonly #clock: Clock;
  readonly #lingerMs: number;
  readonly #onStartupStatus: (event: McpStartupEvent) => void;
  readonly #entries = new Map<LaunchIdentity, Entry>();
  #closed = false;

  constructor(options: McpHubOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#lingerMs = options.lingerMs ?? LINGER_MS;
    this.#onStartupStatus = options.onStartupStatus ?? (() => undefined);
  }

  /** Takes a lease on the session for `launch`; nothing starts until the lease is used (a failed one starts again). */
  lease(threadId: string, launch: McpLaunch): McpLease {
    if (this.#closed) throw new Error('the MCP hub is closed');
    let entry = this.#entries.get(launch.identity);
    if (entry === undefined) {
      const leases = new Set<Lease>();
      const session: McpSession = new McpSession(launch, {
        clock: this.#clock,
        wanted: () => leases.size > 0,
        emit: (status) => this.#emit(session, leases, status),
      });
      entry = { session, leases, linger: null };
      this.#entries.set(launch.identity, entry);
    }
    if (entry.linger !== null) {
      this.#clock.clearTimeout(entry.linger);
      entry.linger = null;
    }
    const lease = new Lease(threadId, launch);
    entry.leases.add(lease);
    // A thread new to a server whose start failed tries it again, as a reference thread starts
    // its own servers; the threads already on it hear of the start too.
    entry.session.restartFailed();
    return lease;
  }

  /** Releases one lease (again is a no-op); the last one starts the linger. */
  release(lease: McpLease): void {
    const own = lease as Lease;
    if (own.released) return;
    own.released = true;
    const entry = this.#entries.get(lease.launch.identity);
    if (entry === undefined || !entry.leases.delete(own) || entry.leases.size > 0) return;
    entry.linger = this.#clock.setTimeout(() => {
      entry.linger = null;
      if (entry.leases.size > 0 || this.#entries.get(lease.launch.identity) !== entry) return;
      this.#entries.delete(lease.launch.identity);
      void entry.session.stop();
    }, this.#lingerMs);
  }

  /** Releases every lease of a thread: its unload. */
  releaseThread(threadId: string): void {
    for (const entry of [...this.#entries.values()]) {
      for (const lease of [...entry.leases]) if (lease.threadId === threadId) this.release(lease);
    }
  }

  /**
   * Stops at once every session no lease holds whose launch is not in `wanted`: a reload left no
   * loaded thread configured with it, so it does not linger for a resume that would not use it.
   */
  stopUnwanted(wanted: ReadonlySet<LaunchIdentity>): void {
    for (const [identity, entry] of [...this.#entries]) {
      if (entry.leases.size > 0 || wanted.has(identity)) continue;
      if (entry.linger !== null) this.#clock.clearTimeout(entry.linger);
      this.#entries.delete(identity);
      void entry.session.stop();
    }
  }

  /** Whether the lease's session has its server running and listed, from memory. */
  isReady(lease: McpLease): boolean {
    return this.#entries.get(lease.launch.identity)?.session.state.kind === 'ready';
  }

  /** Whether the lease's session's last start failed (it waits for a retry, or nobody held it then). */
  startFailed(lease: McpLease): boolean {
    return this.#entries.get(lease.launch.identity)?.session.startFailed === true;
  }

  /** Starts the lease's session again now if its last start failed: a reload asks for it, as the reference's does. */
  restartFailed(lease: McpLease): void {
    this.#entries.get(lease.launch.identity)?.session.restartFailed();
  }

  /** The lease's tools (its server's, through its enabled/disabled lists), starting the session. */
  async tools(lease: McpLease, options: RequestOptions = {}): Promise<Tool[]> {
    const session = this.#session(lease);
    // The start bounds itself (the startup timeout); this bound covers a wait for a restart too.
    const deadline = new CallDeadline(this.#clock, options.deadlineMs ?? lease.launch.startupTimeoutMs + MAX_RESTART_DELAY_MS, options.signal);
    try {
      await session.connection(deadline.signal);
    } catch (error) {
      if (error instanceof DeadlineReason) throw new Error(`MCP client for \`${lease.launch.name}\` did not start in time`);
      throw error;
    } finally {
      deadline.dispose();
    }
    return filterTools(lease.launch, session.inventory?.tools ?? []);
  }

  callTool(lease: McpLease, tool: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<McpToolCallResult> {
    return callTool(this.#session(lease), lease.launch, this.#clock, tool, args, options);
  }

  readResource(lease: McpLease, uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    return readResource(this.#session(lease), lease.launch, this.#clock, uri, options);
  }

  listResources(lease: McpLease, options: RequestOptions = {}): Promise<Resource[]> {
    return listResources(this.#session(lease), lease.launch, this.#clock, options);
  }

  /** For `mcpServerStatus/list`, from memory: a thread's servers, or every session's. */
  status(threadId?: string): McpServerStatus[] {
    const statuses: McpServerStatus[] = [];
    for (const entry of this.#entries.values()) {
      const lease = threadId === undefined ? undefined : [...entry.leases].find((held) => held.threadId === threadId);
      if (threadId !== undefined && lease === undefined) continue;
      statuses.push(serverStatus(entry.session, lease?.launch ?? entry.session.launch));
    }
    return statuses.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Stops every session (each stdio server's process group is killed) and refuses new leases. */
  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    for (const entry of entries) if (entry.linger !== null) this.#clock.clearTimeout(entry.linger);
    await Promise.all(entries.map((entry) => entry.session.stop()));
  }

  #session(lease: McpLease): McpSession {
    const entry = this.#entries.get(lease.launch.identity);
    if ((lease as Lease).released || entry === undefined || !entry.leases.has(lease as Lease)) {
      throw new Error(`the MCP lease of thread ${lease.threadId} on \`${lease.launch.name}\` was released`);
    }
    return entry.session;
  }

  #emit(session: McpSession, leases: ReadonlySet<Lease>, status: StartupStatus): void {
    const threadIds = [...new Set([...leases].map((lease) => lease.threadId))];
    this.#onStartupStatus({
      name: session.launch.name,
      identity: session.launch.identity,
      threadIds,
      status: status.status,
      error: status.status === 'failed' ? status.error : null,
    });
  }
}
