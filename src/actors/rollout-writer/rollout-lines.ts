// Pure builders for the JSONL records that open, account for and close a turn in a rollout, as
// the reference writes them (a turn's messages are message-lines.ts'). legacy-format.ts and
// paginated-format.ts arrange them into turns for each history mode (the paginated format adds
// `ordinal` as each line is written, and records items with `item_completed` where legacy uses
// `user_message`/`agent_message` events).
//
// Each builder returns compact JSON with no trailing newline; the appender adds the '\n'.
// Field names and nesting follow test/fixtures/rollouts/rollout-legacy-*.jsonl. Fields
// that only carry the reference's own bookkeeping are left out on purpose (session_meta
// `account_scoped`/`context_window`, turn_context `permission_profile`, response_item
// `metadata`); the reference deserialises them as optional, and we have nothing true to put
// there. Where the reference serialises an absent Option by omitting it (`client_id`,
// `placeholder`, `time_to_first_token_ms`), so do we.

import type { HistoryBase } from '../../common/rollout/history-base.js';
import type { ModelUsage } from '../../common/wire-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../../common/wire-types.js';
import { event, iso, line } from './record-line.js';

/** What `session_meta` records about a thread; written once, as the file's first line. */
export interface SessionMetaInput {
  threadId: string;
  createdAtMs: number;
  cwd: string;
  originator: string;
  cliVersion: string;
  source: 'vscode';
  modelProvider: string;
  model: string;
  baseInstructions: string | null;
  /** The client's tools (thread/start's `dynamicTools`, normalised); null when none. */
  dynamicTools?: unknown[] | null;
  /** A fork's: where it came from (fork-rollout.ts). */
  fork?: ForkOrigin;
  /** A revert's: the prefix of the thread's earlier file it continues (revert-rollout.ts). */
  historyBase?: HistoryBase;
}

/**
 * A fork's session_meta fields (codex 0.171.0): the source thread; a paginated fork also names
 * the ordinal its own lines begin at and the base it reads its history from (history-base.ts).
 */
export interface ForkOrigin {
  forkedFromId: string;
  base: HistoryBase | null;
}

/** The settings a turn ran with (`turn_context`). */
export interface TurnContextInput {
  turnId: string;
  cwd: string;
  approvalPolicy: string;
  approvalsReviewer: string;
  sandboxMode: 'read-only' | 'workspace-write' | 'danger-full-access';
  model: string;
  effort: string | null;
  developerInstructions: string | null;
}

/** Token usage after a sampling, as `token_count` stores it. */
export interface TokenCountInput {
  total: ModelUsage;
  last: ModelUsage;
  modelContextWindow: number;
}

/** The end of a turn (`task_complete`). */
export interface TaskCompleteInput {
  turnId: string;
  lastAgentMessage: string | null;
  startedAtSec: number;
  completedAtSec: number;
  durationMs: number;
  timeToFirstTokenMs?: number | null;
}

/** An interrupted turn (`turn_aborted`). */
export interface TurnAbortedInput {
  turnId: string;
  reason: 'interrupted';
  startedAtSec: number;
  completedAtSec: number;
  durationMs: number;
}

/** A failed turn: the `task_complete` that closes it, carrying the error. */
export interface TurnFailedInput extends TaskCompleteInput {
  message: string;
  /** The reference's snake_case `CodexErrorInfo` unit variant; `other` when unclassified. */
  codexErrorInfo?: string | null;
}

/** `session_meta`, the file's first record; it fixes the file's history mode for good. */
export function sessionMeta(meta: SessionMetaInput, nowMs: number, historyMode: 'legacy' | 'paginated' = 'legacy'): string {
  const base = meta.fork?.base ?? meta.historyBase ?? null;
  return line('session_meta', nowMs, {
    session_id: meta.threadId,
    id: meta.threadId,
    ...(meta.fork === undefined ? {} : { forked_from_id: meta.fork.forkedFromId }),
    ...(meta.fork?.base == null ? {} : { forked_from_ordinal_exclusive: meta.fork.base.endOrdinalExclusive }),
    timestamp: iso(meta.createdAtMs),
    cwd: meta.cwd,
    runtime_workspace_roots: [meta.cwd],
    originator: meta.originator,
    cli_version: meta.cliVersion,
    source: meta.source,
    model_provider: meta.modelProvider,
    base_instructions:
      meta.baseInstructions === null
        ? null
        : { text: meta.baseInstructions, provenance: { type: 'model', model: meta.model } },
    ...(meta.dynamicTools == null ? {} : { dynamic_tools: meta.dynamicTools }),
    history_mode: historyMode,
    ...(base === null
      ? {}
      : { history_base: { thread_id: base.threadId, end_ordinal_exclusive: base.endOrdinalExclusive, end_byte_offset: base.endByteOffset } }),
  });
}

/** `event_msg/task_started`: opens a turn. Root turns are their own root. */
export function taskStarted(
  turnId: string,
  startedAtSec: number,
  nowMs: number,
  modelContextWindow: number = DEFAULT_MODEL_CONTEXT_WINDOW,
): string {
  return event(nowMs, {
    type: 'task_started',
    turn_attribution: {
      turn_id: turnId,
      turn_trigger: null,
      parent_turn_id: null,
      initiating_agent_path: null,
      root_turn_id: turnId,
    },
    turn_id: turnId,
    root_turn_id: turnId,
    started_at: startedAtSec,
    model_context_window: modelContextWindow,
    collaboration_mode_kind: 'default',
  });
}

/** `turn_context`. Only the legacy `sandbox_policy` is written; see the file comment. */
export function turnContext(ctx: TurnContextInput, nowMs: number): string {
  return line('turn_context', nowMs, {
    turn_id: ctx.turnId,
    root_turn_id: ctx.turnId,
    disabled_plugin_ids: [],
    cwd: ctx.cwd,
    approval_policy: ctx.approvalPolicy,
    approvals_reviewer: ctx.approvalsReviewer,
    model: ctx.model,
    collaboration_mode: {
      mode: 'default',
      settings: {
        model: ctx.model,
        reasoning_effort: ctx.effort,
        developer_instructions: ctx.developerInstructions,
      },
    },
    multi_agent_version: 'v1',
    realtime_active: false,
    summary: 'none',
    sandbox_policy: { type: ctx.sandboxMode },
  });
}

/** `event_msg/token_count` in the shape both history modes use. */
export function tokenCount(usage: TokenCountInput, nowMs: number): string {
  return event(nowMs, {
    type: 'token_count',
    info: {
      total_token_usage: coreUsage(usage.total),
      last_token_usage: coreUsage(usage.last),
      last_usage_includes_reasoning: false,
      model_context_window: usage.modelContextWindow,
    },
    rate_limits: null,
  });
}

/** `event_msg/task_complete`: closes a turn as completed; `turnFailed` writes a failed one. */
export function taskComplete(done: TaskCompleteInput, nowMs: number): string {
  return event(nowMs, {
    type: 'task_complete',
    root_turn_id: done.turnId,
    turn_id: done.turnId,
    last_agent_message: done.lastAgentMessage,
    started_at: done.startedAtSec,
    completed_at: done.completedAtSec,
    duration_ms: done.durationMs,
    ...firstToken(done.timeToFirstTokenMs),
  });
}

/**
 * `event_msg/turn_aborted` (`TurnAbortedEvent` in codex-rs/protocol): the history builder marks
 * the turn `interrupted` and takes `completed_at`/`duration_ms` from it. No `task_complete`
 * follows an abort.
 */
export function turnAborted(aborted: TurnAbortedInput, nowMs: number): string {
  return event(nowMs, {
    type: 'turn_aborted',
    root_turn_id: aborted.turnId,
    turn_id: aborted.turnId,
    reason: aborted.reason,
    started_at: aborted.startedAtSec,
    completed_at: aborted.completedAtSec,
    duration_ms: aborted.durationMs,
  });
}

/**
 * A failed turn as codex 0.171.0 records one (seen on the wire): a `task_complete` whose
 * `error` holds the client-visible message and the snake_case `CodexErrorInfo`. Older
 * releases wrote a separate `event_msg/error`; the reader accepts both.
 */
export function turnFailed(failed: TurnFailedInput, nowMs: number): string[] {
  return [
    event(nowMs, {
      type: 'task_complete',
      root_turn_id: failed.turnId,
      turn_id: failed.turnId,
      last_agent_message: failed.lastAgentMessage,
      error: { message: failed.message, codex_error_info: failed.codexErrorInfo === undefined ? 'other' : failed.codexErrorInfo },
      started_at: failed.startedAtSec,
      completed_at: failed.completedAtSec,
      duration_ms: failed.durationMs,
      ...firstToken(failed.timeToFirstTokenMs),
    }),
  ];
}

// Seen in the reference's rollouts: a turn that failed before its first token has no
// `time_to_first_token_ms` key at all.
function firstToken(ms: number | null | undefined): Record<string, number> {
  return ms === null || ms === undefined ? {} : { time_to_first_token_ms: ms };
}

function coreUsage(usage: ModelUsage): Record<string, number> {
  return {
    input_tokens: usage.inputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    // The model client does not report cache writes separately.
    cache_write_input_tokens: 0,
    output_tokens: usage.outputTokens,
    reasoning_output_tokens: usage.reasoningOutputTokens,
    total_tokens: usage.totalTokens,
  };
}

