// A HostContext for in-process tests of the router and handlers: real where their decisions
// live (connections, outgoing, thread directory, rollout index) and stubbed where it would
// reach a worker, a lock or the model (pool, locks, supervisor, capacity), each stub answering
// at once unless the test passes its own. Stored history (thread/list's pages, reads of
// threads not loaded) is read in-process by the stored-history worker's own code.
import type { ConfigDocument } from '../../src/main/config/config-document.js';
import { ShellHost } from '../../src/main/tools/shell/shell-host.js';
import { systemClock } from '../../src/common/clock.js';
import { ConnectionTable } from '../../src/main/connections.js';
import type { HostContext } from '../../src/main/host-context.js';
import { HostMemo } from '../../src/main/host-memo.js';
import { ListingMemory } from '../../src/stored-reads/listing-memory.js';
import { answerStoredHistory } from '../../src/stored-reads/stored-history-jobs.js';
import { StoredHistory } from '../../src/main/store/stored-history.js';
import type { StoredHistoryRequest } from '../../src/common/stored-history-messages.js';
import { FilesThreads } from '../../src/main/store/files/files-threads.js';
import { FilesThreadQueues } from '../../src/main/store/files/files-queues.js';
import { CodexQueueReconcile } from '../../src/main/store/files/queues/codex-queue-reconcile.js';
import { QueueMirrorMarks } from '../../src/main/store/files/queues/queue-mirror-marks.js';
import { RolloutIndex } from '../../src/main/store/files/rollout-index.js';
import { ThreadMetadata } from '../../src/main/store/files/thread-metadata.js';
import { ThreadReadStates } from '../../src/main/store/files/thread-read-states.js';
import { ThreadNames } from '../../src/main/store/files/thread-names.js';
import { Outgoing } from '../../src/main/outgoing.js';
import { ServerRequests } from '../../src/main/server-requests/server-requests.js';
import { ThreadMcp } from '../../src/main/tools/thread-mcp.js';
import { drainAfterTurnEnd } from '../../src/main/handlers/thread-queue.js';
import { ThreadDirectory } from '../../src/main/threads/directory.js';
import { ThreadQueueStore } from '../../src/main/store/files/queues/thread-queue-store.js';
import type { ThreadId } from '../../src/common/thread-id.js';

export function stubHostContext(home: string, overrides: Record<string, unknown> = {}): HostContext {
  const connections = new ConnectionTable();
  const queueStore = new ThreadQueueStore(home);
  const marks = new QueueMirrorMarks(home);
  const codexQueue = new CodexQueueReconcile({ store: queueStore, marks, mirror: null, clock: systemClock, log: () => undefined, announce: () => undefined });
  const readStates = new ThreadReadStates(home, () => undefined);
  const { store: storeOverrides, ...rest } = overrides as { store?: Record<string, unknown> };
  const locks = { acquire: async (threadId: string) => ({ kind: 'acquired', lock: { threadId } }), release: () => 'unlinked' };
  const ctx = {
    home,
    configDocument: {},
    // A given document is config.toml's, as the host's is when there are no `-c` overrides.
    configLayers: { userFile: `${home}/config.toml`, user: (rest as { configDocument?: ConfigDocument }).configDocument ?? {}, flags: null },
    memo: new HostMemo(),
    cwd: home,
    env: {},
    clock: systemClock,
    log: () => undefined,
    connections,
    outgoing: new Outgoing(connections),
    directory: new ThreadDirectory(),
    supervisor: { noteChanged: () => undefined, unload: async () => 'complete' },
    capacity: { roomOrWait: () => null },
    locks,
    // The files store as a host opens it, its locks stubbed, its mirror off.
    store: {
      threads: new FilesThreads(home, new RolloutIndex(home), new ThreadNames(home, () => undefined), () => undefined),
      metadata: new ThreadMetadata(home, () => undefined),
      readStates,
      queues: new FilesThreadQueues(queueStore, marks, codexQueue),
      locks,
      settled: () => readStates.settled(),
      close: async () => undefined,
      ...storeOverrides,
    },
    // The stored-history worker's code, run in-process: the handlers' tests need no worker.
    storedHistory: inProcessStoredHistory(),
    recorder: { turnStarted: () => undefined, turnEnded: () => undefined },
    lockLost: () => undefined,
    actorSpawnTimeoutMs: 1_000,
    originator: null,
    draining: false,
    serverRequests: new ServerRequests({ connections, log: () => undefined, clock: systemClock, graceMs: 60_000 }),
    mcp: new ThreadMcp({}, () => undefined, () => undefined),
    shell: new ShellHost(),
    // As the host wires it (host/build-host.ts): queued input runs after each turn's end.
    afterTurnEnd: (threadId: ThreadId) => drainAfterTurnEnd(ctx, threadId),
    ...rest,
  } as unknown as HostContext;
  return ctx;
}

/** The stored-history worker's own code, run in-process (no deadline: nothing here can hang). */
function inProcessStoredHistory(): StoredHistory {
  const memory = new ListingMemory();
  const inProcess = { run: async (request: StoredHistoryRequest) => ({ kind: 'done' as const, reply: await answerStoredHistory(memory, request) }), close: async () => undefined };
  return new StoredHistory({ listing: inProcess, reading: inProcess }, 0, () => undefined);
}
