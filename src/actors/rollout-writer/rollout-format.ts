// The seam between a thread's turns and the lines that record them. A rollout is written in
// one history format for its whole life (the reference's `session_meta.history_mode`); the
// actor asks its format for the lines of each step of a turn and hands them to the appender.
// The reference's two formats are the implementations: legacy-format.ts and
// paginated-format.ts.
import type { HistoryMode } from '../../common/rollout/rollout-reader.js';
import type { ToolAnswer } from '../../common/actor-messages.js';
import type { AgentMessageItem, ToolCallItem, UserMessageItem } from '../../common/wire-types.js';
import type { SessionMetaInput, TokenCountInput, TurnContextInput } from './rollout-lines.js';

export type { SessionMetaInput, TokenCountInput, TurnContextInput };

export type { HistoryMode };

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

/** A user message as the model is given it (turn/user-content.ts): its parts and their kinds. */
export type ModelContent = { parts: unknown[]; kinds: string[] };

/** What opens a turn in the rollout. */
export interface TurnStart {
  threadId: string;
  turnId: string;
  startedAtMs: number;
  context: TurnContextInput;
  userItem: UserMessageItem;
  /** The message as the model is given it (user-content.ts); absent, its text parts. */
  modelContent?: ModelContent | null;
}

/** Lines for one step of a turn, and which of them anchor a paged-history cursor. */
export interface FormattedLines {
  lines: string[];
  /** Index in `lines` of the record a cursor points at for the turn (paginated: task_started). */
  turnLine?: number;
  /** Index in `lines` of the record a cursor points at for the item (paginated: item_completed). */
  itemLine?: number;
}

/** Writes one thread's records in one history format. Each method returns whole JSONL lines. */
export interface RolloutFormat {
  readonly historyMode: HistoryMode;
  /**
   * Stamps a line with its ordinal as it is written; null for a format without ordinals. The
   * appender calls it, because only the appender knows which lines really reached the file.
   */
  readonly stampOrdinal: ((line: string, ordinal: number) => string) | null;
  /** The file's first record, written with the first turn. */
  sessionMeta(meta: SessionMetaInput, nowMs: number): string[];
  /** Opens a turn: its start, the settings it runs with, the user's message (the item). */
  turnStart(start: TurnStart): FormattedLines;
  /** More input from the user joining the running turn (turn/steer): the item, and the message as the model is given it. */
  userInput(item: UserMessageItem, turnId: string, nowMs: number, modelContent?: ModelContent): FormattedLines;
  /** The assistant's completed message (the item). */
  agentMessage(item: AgentMessageItem, turnId: string, nowMs: number): FormattedLines;
  /** A tool call the model made, as it made it. */
  toolCall(raw: Record<string, unknown>, turnId: string, nowMs: number): string[];
  /** A tool call's finished item, as its answer comes (the anchor, where the format records items; none in legacy history). */
  toolItem(answer: ToolAnswer, turnId: string, nowMs: number): FormattedLines;
  /** The output the model is given for a call, once every call of its sampling is answered. */
  toolOutput(answer: ToolAnswer, turnId: string, nowMs: number): string[];
  /**
   * An item recorded by itself, with no call output beside it: a command the model left running
   * that ended later, or a user's own command (thread/shellCommand). The anchor, where the
   * format records items.
   */
  standaloneItem(item: ToolCallItem, turnId: string, nowMs: number): FormattedLines;
  /** Token usage after a sampling. */
  tokenCount(usage: TokenCountInput, turnId: string, nowMs: number): string[];
  /** Closes a turn. */
  turnEnd(timing: TurnTiming, end: TurnEnd, nowMs: number): string[];
}
