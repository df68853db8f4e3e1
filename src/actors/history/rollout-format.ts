// The seam between a thread's turns and the lines that record them. A rollout is written in
// one history format for its whole life (the reference's `session_meta.history_mode`); the
// actor asks its format for the lines of each step of a turn and hands them to the appender.
// The reference's legacy format is one implementation (legacy-format.ts); its paginated
// format is another.
import type { AgentMessageItem, UserMessageItem } from '../../shared/wire-types.js';
import type { SessionMetaInput, TokenCountInput, TurnContextInput } from './rollout-lines.js';

export type { SessionMetaInput, TokenCountInput, TurnContextInput };

/** `session_meta.history_mode`. */
export type HistoryMode = 'legacy' | 'paginated';

/** When a turn ran; seconds as the rollout stores them, plus the exact duration. */
export interface TurnTiming {
  turnId: string;
  startedAtSec: number;
  completedAtSec: number;
  durationMs: number;
}

/** How a turn ended, as its client was told. */
export type TurnEnd =
  | { status: 'completed'; lastAgentMessage: string | null; timeToFirstTokenMs: number | null }
  | { status: 'interrupted' }
  /** `codexErrorInfo` in the rollout's snake_case spelling. */
  | { status: 'failed'; message: string; codexErrorInfo: string | null };

/** What opens a turn in the rollout. */
export interface TurnStart {
  turnId: string;
  startedAtMs: number;
  context: TurnContextInput;
  userItem: UserMessageItem;
}

/** Writes one thread's records in one history format. Each method returns whole JSONL lines. */
export interface RolloutFormat {
  readonly historyMode: HistoryMode;
  /** The file's first record, written with the first turn. */
  sessionMeta(meta: SessionMetaInput, nowMs: number): string[];
  /** Opens a turn: its start, the settings it runs with, the user's message. */
  turnStart(start: TurnStart): string[];
  /** The assistant's completed message. */
  agentMessage(item: AgentMessageItem, turnId: string, nowMs: number): string[];
  /** Token usage after a sampling. */
  tokenCount(usage: TokenCountInput, nowMs: number): string[];
  /** Closes a turn. */
  turnEnd(timing: TurnTiming, end: TurnEnd, nowMs: number): string[];
}
