// What the main thread and the stored-history worker (workers/stored-history.ts) exchange,
// inside the job envelope of src/main/dedicated-worker.ts: requests validated on the main
// thread that need history read from disk (a `thread/list` page; `thread/read`,
// `thread/turns/list` and `thread/items/list` of a thread that is not loaded here), and what
// the worker read for them.
import type { HistoryMode } from './rollout/rollout-reader.js';
import type { HistoryLocation, ListingSource } from './history-location.js';
import type { StoredMetadata } from './postgres/metadata-patches.js';
import type { StoredReceipt } from './postgres/read-receipts.js';
import type { SessionSource } from './rollout/session-source.js';
import type { ItemsPageRequest, TurnsPageRequest } from './rollout/history-pages.js';

/** What `thread/list` shows of one rollout, read without replaying its turns. */
export interface RolloutSummary {
  threadId: string;
  /** The rollout file; null for a thread of the PostgreSQL thread store. */
  path: string | null;
  createdAtMs: number;
  /** The file's mtime: the last append. */
  updatedAtMs: number;
  preview: string;
  /** As the rollout records it; null when it names none (shown as the default provider). */
  modelProvider: string | null;
  cwd: string;
  cliVersion: string;
  source: SessionSource;
  /** What `sourceKinds` filters the source by. */
  sourceKind: string;
  originator: string;
  model: string | null;
  historyMode: HistoryMode;
  /** The name the store holds with the thread (the PostgreSQL store's); absent where names are the host's to know. */
  storedName?: string | null;
  /** The read state and metadata the store holds with the thread (the PostgreSQL store's), likewise. */
  storedReceipt?: StoredReceipt;
  storedMetadata?: StoredMetadata;
}

/** Which rollouts a listing keeps (null: no filter of that kind; an empty list of ids or cwds keeps none). */
export interface ThreadFilter {
  includedIds: string[] | null;
  excludedIds: string[] | null;
  /** Source kinds shown (`subAgent`: every sub-agent kind); the interactive ones when the client named none. */
  sources: readonly string[];
  /** null: the threads of config.toml's provider (all, when it names none); empty: every provider's. */
  modelProviders: string[] | null;
  cwds: string[] | null;
  searchTerm: string | null;
}

/** Main → worker: one page of `thread/list`. */
export interface ThreadPageQuery {
  /** The store listed: the home's rollout files, or the PostgreSQL thread store's rows. */
  source: ListingSource;
  /** List <home>/archived_sessions instead of <home>/sessions. */
  archived: boolean;
  filter: ThreadFilter;
  /** config.toml's `model_provider`, or null when it names none (see threadProviderOf). */
  namedModelProvider: string | null;
  /** By creation time (the default), or by update time. */
  byCreation: boolean;
  /** 1 ascending, -1 descending (the default). */
  direction: 1 | -1;
  /** Rows strictly after this (in `direction`): its time, in ms, and thread id if it had one. */
  after: { at: number; id: string | null } | null;
  size: number;
}

/** A `thread/list` page, with the reference's cursors. */
export interface ThreadPage {
  kind: 'page';
  summaries: RolloutSummary[];
  nextCursor: string | null;
  backwardsCursor: string | null;
}

/** What a client set with `thread/metadata/update` (thread-host's copy, src/main/store/files/thread-metadata.ts). */
export interface ThreadMetadataView {
  gitInfo: { sha: string | null; branch: string | null; originUrl: string | null } | null;
  daybreakEnabled: boolean | null;
}

/** A request's answer read from one thread's history, found at `location` by the main thread. */
export type StoredRead =
  | {
      kind: 'read';
      threadId: string;
      location: HistoryLocation;
      includeTurns: boolean;
      namedModelProvider: string | null;
      threadName: string | null;
      metadata: ThreadMetadataView | null;
      /** thread/read's `readState` (thread-host's copy, src/main/store/files/thread-read-states.ts); absent from other answers. */
      readState?: unknown;
    }
  | { kind: 'turns'; threadId: string; location: HistoryLocation; page: TurnsPageRequest }
  | { kind: 'items'; threadId: string; location: HistoryLocation; page: ItemsPageRequest };

/** Main → worker (the mirror into the reference's databases has a worker of its own: codex-db/codex-state-changes.ts). */
export type StoredHistoryRequest = { kind: 'list'; query: ThreadPageQuery } | StoredRead;

/** Worker → main. */
export type StoredHistoryReply =
  | ThreadPage
  /** A StoredRead's result as JSON text in UTF-8 (transferred: the main thread splices it into the reply as is). */
  | { kind: 'answer'; json: Uint8Array; historyMode: HistoryMode }
  /** The file holds no session_meta: as far as the reference is concerned there is no such thread. */
  | { kind: 'noRollout' }
  /** The request's own error, as the reference words it (an invalid cursor, say). */
  | { kind: 'rpcError'; code: number; message: string; data?: unknown }
  /** Reading failed (the file went, EIO, a bug): the error's text, and its stack for the log. */
  | { kind: 'failed'; message: string; stack?: string };
