// One client session per launch identity, shared by every thread that leases it. It starts on
// first use, restarts with backoff when its server dies while leased, and keeps the server's
// inventory in memory so status answers never wait on the server. A server that fails to start
// is not tried again on its own (the reference's is not): a reload, or a thread taking a new
// lease (the reference starts a thread's servers when it loads), starts it again.
//
//   idle ──use──► starting ──ok──► ready ──exit (leased)──► backoff ──timer──► starting
//                    │                 └──exit (not leased)──► idle
//                    └──fail──► failed ──restartFailed()──► starting
//   any ──stop()──► stopped (terminal)
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Clock } from '../../../common/clock.js';
import { untilAborted } from './call-deadline.js';
import { connectServer, listInventory, listTools, type McpConnection, type McpInventory } from './mcp-connection.js';
import type { McpLaunch } from './mcp-launch.js';
import { restartDelay, STABLE_MS } from './restart-backoff.js';

/** The session's state; each carries its own data. */
export type SessionState =
  | { kind: 'idle'; lastError: string | null }
  | { kind: 'starting'; attempt: number }
  | { kind: 'ready'; connection: McpConnection; attempt: number; readySince: number }
  | { kind: 'backoff'; attempt: number; error: string; timer: unknown }
  | { kind: 'failed'; error: string }
  | { kind: 'stopped' };

/** `mcpServer/startupStatus/updated`'s states, as the session reports them. */
export type StartupStatus = { status: 'starting' } | { status: 'ready' } | { status: 'failed'; error: string } | { status: 'cancelled' };

/** An elicitation handler of one call in flight. */
export type ElicitationHandler = (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;

/** What a session needs from the hub. */
export interface SessionDeps {
  clock: Clock;
  /** Whether any lease holds the session: only then is a dead server restarted. */
  wanted(): boolean;
  emit(status: StartupStatus): void;
}

interface PendingStart {
  promise: Promise<McpConnection>;
  resolve(connection: McpConnection): void;
  reject(error: Error): void;
}

// The server's "Transport closed" (rmcp's `ServiceError::TransportClosed`) as the failed status.
const EXITED = 'Transport closed';

/** One shared client session. */
export class McpSession {
  #state: SessionState = { kind: 'idle', lastError: null };
  // Settles when the start in progress (or the restart after an exit) ends.
  #next: PendingStart | null = null;
  readonly #calls = new Set<ElicitationHandler | null>();
  #relist: 'none' | 'running' | 'again' = 'none';

  constructor(
    readonly launch: McpLaunch,
    private readonly deps: SessionDeps,
  ) {}

  get state(): SessionState {
    return this.#state;
  }

  /** The last inventory listed, from memory; null until the first start succeeds. */
  inventory: McpInventory | null = null;

  /** The ready connection, starting the server if needed; rejects with the startup text. */
  connection(signal: AbortSignal): Promise<McpConnection> {
    const state = this.#state;
    switch (state.kind) {
      case 'ready':
        return Promise.resolve(state.connection);
      case 'stopped':
        return Promise.reject(new Error(`MCP client for \`${this.launch.name}\` is closed`));
      case 'failed':
        // A server that failed to start fails calls at once.
        return Promise.reject(new Error(state.error));
      case 'backoff':
        // One that died waits for its restart.
        return untilAborted(this.#nextStart().promise, signal);
      case 'idle':
        this.#start(1);
        return untilAborted(this.#nextStart().promise, signal);
      case 'starting':
        return untilAborted(this.#nextStart().promise, signal);
    }
  }

  /** Whether the last start failed (nothing starts it again until `restartFailed`). */
  get startFailed(): boolean {
    return this.#state.kind === 'failed';
  }

  /** A failed start is tried again now. */
  restartFailed(): void {
    if (this.#state.kind === 'failed') this.#start(1);
  }

  /** Runs `work` as a call in flight: elicitations reach `onElicitation` while it runs. */
  async inFlight<T>(onElicitation: ElicitationHandler | null, work: () => Promise<T>): Promise<T> {
    // A distinct entry per call, even when two share a handler.
    const entry: ElicitationHandler | null = onElicitation === null ? null : (params, signal) => onElicitation(params, signal);
    this.#calls.add(entry);
    try {
      return await work();
    } finally {
      this.#calls.delete(entry);
    }
  }

  /** Stops for good: the server is closed (its process group killed) and waiters fail. */
  async stop(): Promise<void> {
    const state = this.#state;
    if (state.kind === 'stopped') return;
    this.#state = { kind: 'stopped' };
    if (state.kind === 'backoff') this.deps.clock.clearTimeout(state.timer);
    this.#settle(new Error(`MCP client for \`${this.launch.name}\` is closed`));
    if (state.kind === 'starting') this.deps.emit({ status: 'cancelled' });
    if (state.kind === 'ready') await state.connection.close().catch(() => undefined);
  }

  #nextStart(): PendingStart {
    if (this.#next === null) {
      let resolve!: (c: McpConnection) => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<McpConnection>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // A start nobody waits for must not be an unhandled rejection.
      promise.catch(() => undefined);
      this.#next = { promise, resolve, reject };
    }
    return this.#next;
  }

  #settle(outcome: McpConnection | Error): void {
    const next = this.#next;
    this.#next = null;
    if (next === null) return;
    if (outcome instanceof Error) next.reject(outcome);
    else next.resolve(outcome);
  }

  #start(attempt: number): void {
    const starting: SessionState = { kind: 'starting', attempt };
    this.#state = starting;
    this.deps.emit({ status: 'starting' });
    let connection: McpConnection | null = null;
    const handlers = {
      onElicitation: (params: ElicitRequest['params'], signal: AbortSignal) => this.#elicit(params, signal),
      onListChanged: (list: 'tools' | 'resources') => {
        if (connection !== null) this.#relistFor(connection, list);
      },
      onClosed: () => {
        if (connection !== null) this.#exited(connection);
      },
    };
    connectServer(this.launch, this.deps.clock, handlers).then(
      (connected) => {
        connection = connected;
        if (this.#state !== starting) {
          void connected.close().catch(() => undefined);
          return;
        }
        this.inventory = connected.inventory;
        this.#state = { kind: 'ready', connection: connected, attempt, readySince: this.deps.clock.now() };
        this.deps.emit({ status: 'ready' });
        this.#settle(connected);
      },
      (error: Error) => {
        if (this.#state !== starting) return;
        this.deps.emit({ status: 'failed', error: error.message });
        this.#state = { kind: 'failed', error: error.message };
        this.#settle(error);
      },
    );
  }

  #exited(connection: McpConnection): void {
    const state = this.#state;
    if (state.kind !== 'ready' || state.connection !== connection) return;
    this.deps.emit({ status: 'failed', error: EXITED });
    // A server that stayed up a while starts the backoff afresh.
    const attempt = this.deps.clock.now() - state.readySince >= STABLE_MS ? 1 : state.attempt;
    this.#retryLater(attempt, EXITED);
  }

  #retryLater(attempt: number, error: string): void {
    if (!this.deps.wanted()) {
      this.#state = { kind: 'idle', lastError: error };
      this.#settle(new Error(error));
      return;
    }
    const timer = this.deps.clock.setTimeout(() => {
      if (this.#state.kind !== 'backoff' || this.#state.timer !== timer) return;
      if (this.deps.wanted()) this.#start(attempt + 1);
      else this.#state = { kind: 'idle', lastError: error };
    }, restartDelay(attempt));
    this.#state = { kind: 'backoff', attempt, error, timer };
  }

  // Elicitations carry no link to the request they belong to on stdio, so one goes to the only
  // call in flight that can answer it; with none, or several (the server is shared between
  // threads and guessing could show one thread's question to another), it is cancelled.
  #elicit(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const handlers = [...this.#calls].filter((handler): handler is ElicitationHandler => handler !== null);
    if (handlers.length !== 1) return Promise.resolve({ action: 'cancel' });
    return handlers[0]!(params, signal);
  }

  // notifications/*/list_changed: list again in the background, under the startup timeout; a
  // change that arrives while listing lists once more afterwards.
  #relistFor(connection: McpConnection, list: 'tools' | 'resources'): void {
    if (this.#relist !== 'none') {
      this.#relist = 'again';
      return;
    }
    this.#relist = 'running';
    const signal = AbortSignal.timeout(this.launch.startupTimeoutMs);
    const work =
      list === 'tools'
        ? listTools(connection.client, signal).then((tools) => ({ ...(this.inventory ?? connection.inventory), tools }))
        : listInventory(connection.client, signal).then((inventory) => ({ ...inventory, tools: (this.inventory ?? inventory).tools }));
    work
      .then(
        (inventory) => {
          if (this.#state.kind === 'ready' && this.#state.connection === connection) this.inventory = inventory;
        },
        () => undefined, // the old list stays; the next change lists again
      )
      .finally(() => {
        const again = this.#relist === 'again';
        this.#relist = 'none';
        if (again) this.#relistFor(connection, list);
      });
  }
}
