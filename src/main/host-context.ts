// What request handlers share: the process's home, configuration and the main-thread
// services (connections, directory, supervisor, pool, locks). Built once by app-server.ts.
import type { ActorPool } from './pool/actor-pool.js';
import type { Clock } from '../common/clock.js';
import type { ThreadStore } from './store/thread-store.js';
import type { StoredHistory } from './store/stored-history.js';
import type { ThreadDirectory } from './threads/directory.js';
import type { LockLoss, WriterLockBackend } from './store/writer-lock-backend.js';
import type { Supervisor } from './threads/supervisor.js';
import type { LoadCapacity } from './threads/load-capacity.js';
import type { ConfigDocument } from './config/config-document.js';
import type { ConfigLayers } from './config/config-layers.js';
import type { ConnectionTable } from './connections.js';
import type { LogFn } from '../common/log.js';
import type { Outgoing } from './outgoing.js';
import type { ShellHost } from './tools/shell/shell-host.js';
import type { HostRecorder } from './metrics/host-recorder.js';
import type { ServerRequests } from './server-requests/server-requests.js';
import type { ThreadMcp } from './tools/thread-mcp.js';
import type { HostMemo } from './host-memo.js';
import type { ThreadId } from '../common/thread-id.js';

export interface HostContext {
  home: string;
  /** config.toml with the command line's `-c` overrides applied (validated per thread). */
  configDocument: ConfigDocument;
  /** config.toml and the `-c` overrides apart, read at start, for config/read. */
  configLayers: ConfigLayers;
  /** What is computed once from the configuration (the model catalog, config/read's answer, the resolved host config). */
  memo: HostMemo;
  cwd: string;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  log: LogFn;
  connections: ConnectionTable;
  outgoing: Outgoing;
  directory: ThreadDirectory;
  supervisor: Supervisor;
  /** Admission of new loads against max_loaded_threads. */
  capacity: LoadCapacity;
  pool: ActorPool;
  /** The store's writer locks, metered for /metrics when the host has it. */
  locks: WriterLockBackend;
  /** The store the host keeps its threads in, chosen at start (host/open-store.ts): threads, their states, queues and locks. */
  store: ThreadStore;
  /** History read from disk off the main thread: thread/list's pages, and reads of threads not loaded here. */
  storedHistory: StoredHistory;
  /** Deadlines for waiting on a worker. */
  actorSpawnTimeoutMs: number;
  /** The first initialized client's name, which the reference uses as the userAgent's originator. */
  originator: string | null;
  draining: boolean;
  /**
   * Called after every turn's end: queued input runs once the thread has no turn in progress
   * (handlers/thread-queue.ts), without the actor events' module importing the handlers that
   * start turns.
   */
  afterTurnEnd: (threadId: ThreadId) => void;
  /** A writer lock (or a store's ownership) this host held is lost: stop, fail, warn, unload (threads/lock-loss.ts). */
  lockLost: (loss: LockLoss) => void;
  /** Requests this server sent to clients (tool calls, approvals) and their answers. */
  serverRequests: ServerRequests;
  /** The loaded threads' MCP servers, on one hub: a session per launch, shared by the threads that use it. */
  mcp: ThreadMcp;
  /** The model's commands: the runner, what each turn runs, what was approved for a session (tools/shell/). */
  shell: ShellHost;
  /** Turn, lock, unload and janitor events for /metrics (a no-op over stdio). */
  recorder: HostRecorder;
}
