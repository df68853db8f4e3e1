// The files store, opened: the home's rollouts and thread-host's own files beside them, the
// flock or lockfile writer locks, and the mirror into the reference's state and queue databases
// (codex_history_projection; off on a lockfile home), which the store owns and keeps current
// under its own changes. Nothing outside the store sees the mirror.
import { systemClock } from '../../../common/clock.js';
import { codexStateDatabasesBeside } from '../../../common/codex-db/codex-state-changes.js';
import type { LogFn } from '../../../common/log.js';
import { workerEntry } from '../../build-layout.js';
import type { StartupConfig } from '../../host/startup-config.js';
import type { HostRecorder } from '../../metrics/host-recorder.js';
import type { StoreHooks } from '../store-hooks.js';
import type { ThreadStore } from '../thread-store.js';
import type { WriterLockBackend } from '../writer-lock-backend.js';
import { CodexStateMirror } from './codex-state-mirror.js';
import { FilesThreadQueues } from './files-queues.js';
import { FilesThreads } from './files-threads.js';
import { FlockWriterLocks } from './locks/flock/flock-writer-locks.js';
import { ensureHomeBackend } from './locks/home-marker.js';
import type { LockfileWriterLocks } from './locks/lockfile/lockfile-writer-locks.js';
import { CodexQueueReconcile } from './queues/codex-queue-reconcile.js';
import { mirroredQueueChanges, QueueMirrorMarks } from './queues/queue-mirror-marks.js';
import { ThreadQueueStore } from './queues/thread-queue-store.js';
import { RolloutIndex } from './rollout-index.js';
import { ThreadMetadata } from './thread-metadata.js';
import { ThreadNames } from './thread-names.js';
import { ThreadReadStates } from './thread-read-states.js';

export interface FilesStoreOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  startup: StartupConfig;
  log: LogFn;
  recorder: HostRecorder;
  hooks: StoreHooks;
}

/**
 * Opens the home. A home never has hosts on two lock backends: the first host records its own
 * and any other refuses to start (throws ConfigError), before anything takes a lock.
 */
export async function openFilesStore(options: FilesStoreOptions): Promise<ThreadStore> {
  const { home, startup, log, hooks } = options;
  ensureHomeBackend(home, startup.lockBackend.kind);
  const locks = await openLocks(options);
  const mirror =
    startup.codexHistoryDatabase === null
      ? null
      : CodexStateMirror.inWorker({ filename: workerEntry('codex-state'), databases: codexStateDatabasesBeside(startup.codexHistoryDatabase), clock: systemClock, log });
  const readStates = new ThreadReadStates(home, log, undefined, mirror?.receiptRecorded);
  const marks = new QueueMirrorMarks(home);
  // Mirrored into the reference's queue, which rows it wrote marked (queue-mirror-marks.ts).
  const queueStore = new ThreadQueueStore(home, mirroredQueueChanges(mirror, marks));
  const codexQueue = new CodexQueueReconcile({ store: queueStore, marks, mirror, clock: systemClock, log, announce: hooks.queueChangedHere });
  return {
    // Names live in session_index.jsonl, as the reference keeps them.
    threads: new FilesThreads(home, new RolloutIndex(home), new ThreadNames(home, log, mirror?.nameSet), (threadId) => mirror?.threadDeleted(threadId)),
    readStates,
    metadata: new ThreadMetadata(home, log),
    queues: new FilesThreadQueues(queueStore, marks, codexQueue),
    locks,
    settled: async () => {
      // The read states the last turn ends moved are written (each line has the home-file
      // deadline), then what the mirror was handed of them, and of every change before (each
      // bounded by its wait for the reference's write lock).
      await readStates.settled();
      await mirror?.settled();
    },
    close: async () => {
      await mirror?.close();
    },
  };
}

async function openLocks({ home, env, startup, log, recorder, hooks }: FilesStoreOptions): Promise<WriterLockBackend> {
  const common = { clock: systemClock, log, ...(startup.lockTimeoutMs ? { timeoutMs: startup.lockTimeoutMs } : {}) };
  const backend = startup.lockBackend;
  if (backend.kind === 'flock') {
    // Only flock has a janitor whose removals /metrics counts.
    return new FlockWriterLocks(home, { ...common, onJanitorEvent: (event) => event.outcome === 'removed' && recorder.janitorRemoved() });
  }
  // Loaded only by hosts configured for it: proper-lockfile brings graceful-fs, which patches
  // the process's `fs`, and signal-exit, which hooks signals, and a flock host needs neither.
  const { LockfileWriterLocks: lockfileClass }: { LockfileWriterLocks: typeof LockfileWriterLocks } = await import('./locks/lockfile/lockfile-writer-locks.js');
  return new lockfileClass(home, { ...common, staleMs: backend.staleMs, updateMs: backend.updateMs, onLost: hooks.lockLost, faultEnv: env });
}
