// What the main thread and the codex-state worker (workers/codex-state.ts) exchange, inside the
// job envelope of src/main/dedicated-worker.ts: each change to mirror into the reference's state
// and queue databases (src/codex-state/codex-state-writer.ts), handed over once thread-host's
// own durable copy of it is written (a thread's name, its read receipt, its queue, its
// deletion), and which queued rows the mirror wrote are still there.
import { dirname, join } from 'node:path';
import type { UserInput } from '../wire-types.js';

/** The reference's databases beside its history database (they share its SQLite home). */
export interface CodexStateDatabases {
  /** state_5.sqlite: `threads` (the name), `thread_read_receipts`. */
  state: string;
  /** queue_1.sqlite: `queued_items`. */
  queue: string;
}

export function codexStateDatabasesBeside(historyDatabase: string): CodexStateDatabases {
  const sqliteHome = dirname(historyDatabase);
  return { state: join(sqliteHome, 'state_5.sqlite'), queue: join(sqliteHome, 'queue_1.sqlite') };
}

/** One queued input, as the wire shows it (`QueuedSubmission`). */
export interface QueuedSubmission {
  id: string;
  input: UserInput[];
  clientUserMessageId: string;
  responsesapiClientMetadata: Record<string, string> | null;
}

/** Where a client stopped reading a thread, as thread-host keeps it (thread-read-states.ts). */
export interface MirroredReceipt {
  firstUnread: { type: 'turn'; turnId: string } | { type: 'threadStart' } | null;
  revision: string;
  lastPublishedTurn: string | null;
}

export type CodexStateChange =
  | { kind: 'name'; threadId: string; name: string }
  /** null: the receipt is forgotten (the thread was deleted). */
  | { kind: 'readReceipt'; threadId: string; receipt: MirroredReceipt | null }
  /** The thread's queue went from `before` to `after` (one add, update, delete, reorder or start). */
  | { kind: 'queue'; threadId: string; before: readonly QueuedSubmission[]; after: readonly QueuedSubmission[]; nowMs: number }
  | { kind: 'threadDeleted'; threadId: string };

/** Main → worker: one change to mirror. */
export interface CodexStateMirrorRequest {
  kind: 'mirrorCodexState';
  databases: CodexStateDatabases;
  change: CodexStateChange;
}

/** Why (part of) a change was not mirrored, for the host's log (each kind once per database). */
export interface MirrorNotice {
  database: string;
  threadId: string;
  reason: string;
}

/** Worker → main. */
export interface CodexStateMirrorReply {
  kind: 'mirrored';
  notices: MirrorNotice[];
  /**
   * For a queue change that committed: which of the queue's submissions have a row in the
   * queue database after it (the reference may run those when it resumes the thread).
   */
  queuedRows?: string[];
}

/**
 * Main → worker: which of these queued submissions of the thread still have their row in the
 * queue database (src/main/store/files/queues/codex-queue-reconcile.ts asks before running them).
 */
export interface CodexQueueRowsRequest {
  kind: 'codexQueueRows';
  database: string;
  threadId: string;
  ids: string[];
}

/** Worker → main: the ids whose rows are there, or why the database could not tell. */
export type CodexQueueRowsReply = { kind: 'codexQueueRows'; present: string[] } | { kind: 'codexQueueUnknown'; reason: string };

/** Main → the codex-state worker: every job it takes. */
export type CodexStateRequest = CodexStateMirrorRequest | CodexQueueRowsRequest;

/**
 * The codex-state worker → main: a job's answer, or its failure's text (and stack, for the
 * log), never an error thrown at the worker's event loop.
 */
export type CodexStateReply = CodexStateMirrorReply | CodexQueueRowsReply | { kind: 'failed'; message: string; stack?: string };
