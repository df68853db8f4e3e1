// What a loaded thread is told by the events that shape it: who it is, how it runs, what a
// resume read, how a turn ended, and the status clients see (loaded-thread.ts keeps them).
import type { ThreadSettings } from '../../common/actor-messages.js';
import type { HistoryLocation } from '../../common/history-location.js';
import type { HistoryMode } from '../../common/rollout/rollout-reader.js';
import type { SessionSource } from '../../common/rollout/session-source.js';
import type { TokenUsageSnapshot } from '../../common/token-usage.js';
import type { TurnError } from '../../common/wire-types.js';
import type { EncodedJson } from '../protocol/encoded-json.js';

/** The loaded status shown on the wire (`notLoaded` is never stored; absence means it). */
export type LoadedStatus = { type: 'idle' } | { type: 'active'; activeFlags: string[] } | { type: 'systemError' };

/** Static facts about a thread, fixed when it is created or resumed. */
export interface ThreadIdentity {
  readonly createdAtMs: number;
  /** The rollout file shown as the thread's `path`; null when its history is no file (or it has none). */
  readonly path: string | null;
  /** Where the store keeps its history, passed back to the store and the workers as is; null for an ephemeral thread. */
  readonly history: HistoryLocation | null;
  readonly ephemeral: boolean;
  readonly originator: string;
  readonly cliVersion: string;
  readonly source: SessionSource;
  /** The thread this one was forked from, as its rollout names it; absent for one that is no fork. */
  readonly forkedFromId?: string | null;
}

/** What the host keeps of a thread's origin and settings once its load has its lock. */
export interface ThreadDescription {
  identity: ThreadIdentity;
  settings: ThreadSettings;
  historyMode: HistoryMode;
  unloadDelaySecs: number | null;
}

/** What a cold resume read from the rollout, for the transcript. */
export interface ResumedFacts {
  identity: ThreadIdentity;
  settings: ThreadSettings;
  preview: string;
  updatedAtMs: number;
  lastTokenUsage: TokenUsageSnapshot | null;
  resumedHistoryJson: { count: number; json: EncodedJson } | null;
}

/** The status every idle thread shares: statuses are replaced, never changed in place. */
export const IDLE: LoadedStatus = Object.freeze({ type: 'idle' });

/** How a turn ended. */
export interface TurnEnd {
  status: 'completed' | 'interrupted' | 'failed';
  error: TurnError | null;
  completedAtMs: number;
  durationMs: number;
}
