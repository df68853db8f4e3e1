// What request handlers and turn ends ask of the two kinds of thread state clients set besides
// the history and the name: where they stopped reading (thread/readState/update, moved by every
// turn's end) and the thread's metadata (thread/metadata/update). The files store keeps them in
// thread-host's own files in the home (thread-read-states.ts, thread-metadata.ts); the
// PostgreSQL store in the threads row every host shares (src/main/store/postgres/postgres-read-states.ts,
// postgres-thread-metadata.ts). Either answers reads from memory; changes go to its store.
import type { ThreadMetadataView } from '../../common/stored-history-messages.js';
import type { ThreadMetadataPatch } from './files/thread-metadata.js';
import type { ThreadReadState } from './files/thread-read-states.js';
import type { ThreadId } from '../../common/thread-id.js';

export interface ReadStateKeeper {
  /** The read state of a materialized thread, from memory (read, at `initial:<id>`, before anything was recorded). */
  get(threadId: ThreadId): ThreadReadState;
  /**
   * A turn ended: its new state at once; the store follows, unless the turn's own last append
   * stored it (`storedWithTurn`, the PostgreSQL store: fenced-append.ts).
   */
  turnEnded(threadId: ThreadId, turnId: string, nowMs: number, storedWithTurn?: boolean): ThreadReadState;
  /** Marks the thread read or unread if its revision is still `expectedRevision`; the state now, and whether it changed. */
  mark(threadId: ThreadId, operation: 'read' | 'unread', expectedRevision: string, nowMs: number): Promise<{ changed: boolean; state: ThreadReadState }>;
  /** The thread was reverted to the turns in `kept`: the new state, or null when nothing changed. */
  reverted(threadId: ThreadId, kept: ReadonlySet<string>, nowMs: number): ThreadReadState | null;
  /** Forgets a deleted thread's read state. */
  forget(threadId: ThreadId, nowMs: number): Promise<void>;
  /** Resolves once every change made so far is stored (or failed). */
  settled(): Promise<void>;
}

export interface MetadataKeeper {
  /** The thread's metadata, from memory, or null when nothing was set. */
  get(threadId: ThreadId): ThreadMetadataView | null;
  /** Applies the patch in the store, then remembers the result; rejects when the store does. */
  update(threadId: ThreadId, patch: ThreadMetadataPatch, nowMs: number): Promise<ThreadMetadataView>;
  /** Forgets a deleted thread's metadata. */
  forget(threadId: ThreadId, nowMs: number): Promise<void>;
}
