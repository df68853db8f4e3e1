// The store a host keeps its threads in, chosen once at start (host/open-store.ts) and asked
// through this seam by everything else: the threads' histories and names, the read states and
// metadata clients set, the queued input, the writer locks that give a thread one writer, and
// what the store projects elsewhere. Two stores implement it: the home's files, shared with
// the reference (files/open-files-store.ts), and a PostgreSQL database shared by a fleet of
// hosts (postgres/open-postgres-store.ts). Nothing outside src/main/store/ asks which one it is:
// what differs is in the implementations, and what a caller needs of a difference is a method
// here. docs/architecture.md ("Adding a store") says what a new one provides.
import type { StoredThreads } from './stored-threads.js';
import type { MetadataKeeper, ReadStateKeeper } from './thread-state-keepers.js';
import type { ThreadQueues } from './thread-queues.js';
import type { WriterLockBackend } from './writer-lock-backend.js';

export interface ThreadStore {
  readonly threads: StoredThreads;
  /** Where clients stopped reading each thread, answered from memory. */
  readonly readStates: ReadStateKeeper;
  /** What thread/metadata/update set, answered from memory. */
  readonly metadata: MetadataKeeper;
  /** Input queued for threads. */
  readonly queues: ThreadQueues;
  /** One writer per thread across every host sharing the store. */
  readonly locks: WriterLockBackend;
  /** Resolves once every change handed to the store so far is stored (or failed), projections included. */
  settled(): Promise<void>;
  /** Lets go of what the store holds open (shutdown, once every thread was released). */
  close(): Promise<void>;
}
