// What request handlers share: the process's home, configuration and the main-thread
// services (connections, directory, supervisor, pool, locks). Built once by app-server.ts.
import type { CodexStateMirror } from './store/files/codex-state-mirror.js';
import type { ActorPool } from './pool/actor-pool.js';
import type { Clock } from '../common/clock.js';
import type { RolloutIndex } from './store/files/rollout-index.js';
import type { ThreadStore } from './store/files/files-threads.js';
import type { StoredHistory } from './store/stored-history.js';
import type { MetadataKeeper, ReadStateKeeper } from './store/thread-state-keepers.js';
import type { ThreadQueues } from './threads/thread-queues.js';
import type { ThreadDirectory } from './threads/directory.js';
import type { LockLoss, WriterLockBackend } from './store/writer-lock-backend.js';
import type { Supervisor } from './threads/supervisor.js';
import type { LoadCapacity } from './threads/load-capacity.js';
import type { ConfigDocument } from './config/config-document.js';
import type { ConfigLayers } from './config/config-layers.js';
import type { ConnectionTable } from './connections.js';
import type { LogFn } from '../common/log.js';
import type { Outgoing } from './outgoing.js';
import type { HostRecorder } from './metrics/host-recorder.js';

export interface HostContext {
  home: string;
  /** config.toml with the command line's `-c` overrides applied (validated per thread). */
  configDocument: ConfigDocument;
  /** config.toml and the `-c` overrides apart, read at start, for config/read. */
  configLayers: ConfigLayers;
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
  locks: WriterLockBackend;
  /** Which store holds thread histories (files or PostgreSQL), where a thread's is, and its name. */
  threadStore: ThreadStore;
  /** Where rollouts are, learned once instead of walking sessions/ per request. */
  rollouts: RolloutIndex;
  /** What thread/metadata/update set (thread-host's own file, or the PostgreSQL store), answered from memory. */
  threadMetadata: MetadataKeeper;
  /** Where clients stopped reading each thread (thread-host's own file, or the PostgreSQL store), answered from memory. */
  threadReadStates: ReadStateKeeper;
  /** Input queued for threads (thread-host's own files, or the PostgreSQL store). */
  threadQueues: ThreadQueues;
  /** History read from disk off the main thread: thread/list's pages, and reads of threads not loaded here. */
  storedHistory: StoredHistory;
  /** Names, read receipts and queues mirrored into the reference's state and queue databases; null when off. */
  codexStateMirror: CodexStateMirror | null;
  /** Deadlines for waiting on a worker. */
  actorSpawnTimeoutMs: number;
  /** The first initialized client's name, which the reference uses as the userAgent's originator. */
  originator: string | null;
  draining: boolean;
  /** A writer lock (or a store's ownership) this host held is lost: stop, fail, warn, unload (threads/lock-loss.ts). */
  lockLost: (loss: LockLoss) => void;
  /** Turn, lock, unload and janitor events for /metrics (a no-op over stdio). */
  recorder: HostRecorder;
}
