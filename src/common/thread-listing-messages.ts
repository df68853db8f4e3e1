// What the main thread and the thread-listing worker (workers/thread-listing.ts) exchange,
// inside the job envelope of src/main/dedicated-worker.ts: a `thread/list` query, validated on
// the main thread, and the page the worker read from <home>/sessions for it.
import type { HistoryMode } from './history/rollout-reader.js';

/** What `thread/list` shows of one rollout, read without replaying its turns. */
export interface RolloutSummary {
  threadId: string;
  path: string;
  createdAtMs: number;
  /** The file's mtime: the last append. */
  updatedAtMs: number;
  preview: string;
  modelProvider: string;
  cwd: string;
  cliVersion: string;
  source: string;
  originator: string;
  model: string | null;
  historyMode: HistoryMode;
}

/** Which rollouts a listing keeps (each null or empty list: no filter of that kind). */
export interface ThreadFilter {
  includedIds: string[] | null;
  excludedIds: string[] | null;
  /** Sources shown; the interactive ones when the client named none. */
  sources: string[];
  modelProviders: string[] | null;
  cwds: string[] | null;
  searchTerm: string | null;
  archived: boolean;
}

/** Main → worker: one page of `thread/list`. */
export interface ThreadPageQuery {
  home: string;
  filter: ThreadFilter;
  /** By creation time (the default), or by update time. */
  byCreation: boolean;
  /** 1 ascending, -1 descending (the default). */
  direction: 1 | -1;
  /** Rows strictly after this (in `direction`): its time, in ms, and thread id if it had one. */
  after: { at: number; id: string | null } | null;
  size: number;
}

/** Worker → main: the page, with the reference's cursors; or why it could not be read. */
export type ThreadPageReply =
  | { kind: 'page'; summaries: RolloutSummary[]; nextCursor: string | null; backwardsCursor: string | null }
  | { kind: 'failed'; message: string };
