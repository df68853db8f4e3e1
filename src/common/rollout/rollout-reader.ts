// Reads a rollout file back for a cold `thread/resume` or a `thread/read`: splits it into
// records, tolerates the damage a crashed writer leaves, and gathers the thread-level facts
// (session meta, latest model, last token usage, update time). Turns and the conversation to
// replay are rebuilt by turn-history-builder.ts from the same records, in one pass:
//
//   text ──split──► line ──parseLine──► record ──┬──► thread facts (here)
//                   (torn last line dropped,     └──► TurnHistoryBuilder: turns, messages
//                    other bad lines counted)

import { readFile } from 'node:fs/promises';
import { withHistoryBase } from './history-base.js';
import type { ConversationMessage, TokenUsageBreakdown, Turn } from '../wire-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../wire-types.js';
import type { Json, RolloutRecord } from './rollout-json.js';
import { num, obj, parseLine, parseTs, str } from './rollout-json.js';
import { readSessionSource, type ReadSource } from './session-source.js';
import { TurnHistoryBuilder, type TurnPosition } from './turn-history-builder.js';

export type { TurnPosition };

/** `session_meta.history_mode`: how the reference lays a rollout out. */
export type HistoryMode = 'legacy' | 'paginated';

/**
 * How another turn can be appended to this file, read from the file itself. 'unwritable': a
 * layout this host does not write (an unknown history mode, records that contradict their
 * session_meta, a paginated file whose last record has no ordinal); the file is left untouched.
 */
export type AppendPoint =
  | { kind: 'legacy' }
  | { kind: 'paginated'; nextOrdinal: number }
  | { kind: 'unwritable'; reason: string };

/** Thread-level facts from `session_meta` (model: the latest `turn_context`'s). */
export interface RolloutMeta {
  createdAtMs: number;
  cwd: string;
  originator: string;
  cliVersion: string;
  /** null: a source the reference cannot read, which leaves the rollout out of its listings. */
  source: ReadSource | null;
  /** As recorded; null when the session_meta names none (older rollouts). */
  modelProvider: string | null;
  model: string | null;
  baseInstructions: string | null;
  /** As recorded; absent in rollouts older than the field (they are legacy). */
  historyMode: string | null;
  /** The thread this one was forked from (`forked_from_id`); null for one that is no fork. */
  forkedFromId: string | null;
  /** `dynamic_tools`: the tools a client brought at thread/start; null when none were. */
  dynamicTools: unknown[] | null;
}

/** The last `token_count` in the file, in wire spelling. */
export interface RolloutTokenUsage {
  total: TokenUsageBreakdown;
  last: TokenUsageBreakdown;
  modelContextWindow: number;
}

/** Everything a cold resume needs from one rollout file. */
export interface ParsedRollout {
  threadId: string | null;
  meta: RolloutMeta | null;
  turns: Turn[];
  /** Where each turn and item sits in the file (paginated cursors), one per turn. */
  positions: TurnPosition[];
  messages: ConversationMessage[];
  preview: string;
  lastTokenUsage: RolloutTokenUsage | null;
  /** Timestamp of the last line (ms); 0 for an empty file. */
  updatedAtMs: number;
  lastTurnId: string | null;
  /** Unparseable lines other than a torn last line. */
  skippedLines: number;
  appendPoint: AppendPoint;
}

/** Reads and parses a rollout file, with the history of its source when it is a fork (history-base.ts). */
export async function readRollout(path: string): Promise<ParsedRollout> {
  return parseRollout(withHistoryBase(path, await readFile(path, 'utf8')));
}

/** Parses rollout text. A torn (unparseable) last line is ignored silently. */
export function parseRollout(text: string): ParsedRollout {
  const raw = text.split('\n');
  let lastIndex = raw.length - 1;
  while (lastIndex >= 0 && (raw[lastIndex] as string).trim() === '') lastIndex -= 1;
  const history = new TurnHistoryBuilder();
  let session: { threadId: string | null; meta: RolloutMeta } | null = null;
  let latestModel: string | null = null;
  let lastTokenUsage: RolloutTokenUsage | null = null;
  let updatedAtMs = 0;
  let skippedLines = 0;
  let lastRecord: RolloutRecord | null = null;
  let recordsWithOrdinal = 0;
  for (let i = 0; i <= lastIndex; i += 1) {
    const source = raw[i] as string;
    if (source.trim() === '') continue;
    const record = parseLine(source);
    if (record === null) {
      // The writer crashed mid-write: only the last line can be torn, so that one is expected.
      if (i !== lastIndex) skippedLines += 1;
      continue;
    }
    const { ts, type, payload } = record;
    // The last record in ordinal order: a fork's own session_meta comes before its base's lines
    // (history-base.ts) and has the higher ordinal.
    if (lastRecord === null || record.ordinal === null || lastRecord.ordinal === null || record.ordinal > lastRecord.ordinal) lastRecord = record;
    if (record.ordinal !== null) recordsWithOrdinal += 1;
    if (ts !== null) updatedAtMs = ts;
    // The first session_meta describes the thread: a legacy fork copies its parent's later on,
    // and a history base (a fork's source, a reverted thread's earlier file) is put after the
    // newest file's own session_meta (history-base.ts).
    if (type === 'session_meta') session ??= sessionMeta(payload, ts);
    else if (type === 'turn_context') latestModel = str(payload.model) ?? latestModel;
    else if (type === 'event_msg' && payload.type === 'token_count') lastTokenUsage = tokenUsage(payload) ?? lastTokenUsage;
    history.handle(record, i);
  }
  const { turns, positions, messages } = history.finish();
  const meta = session === null ? null : { ...session.meta, model: latestModel ?? session.meta.model };
  return {
    threadId: session?.threadId ?? null,
    meta,
    turns,
    positions,
    messages,
    preview: preview(turns),
    lastTokenUsage,
    updatedAtMs,
    lastTurnId: turns.at(-1)?.id ?? null,
    skippedLines,
    appendPoint: appendPointOf(meta, lastRecord, recordsWithOrdinal),
  };
}

/** The mode a rollout is shown in: paginated only when it says so (older files are legacy). */
export function historyModeOf(meta: RolloutMeta): HistoryMode {
  return meta.historyMode === 'paginated' ? 'paginated' : 'legacy';
}

// The reference continues a paginated file at its last parseable record's ordinal + 1 and
// refuses one whose last record has none; everything else about the file's layout must agree
// with its session_meta before this host adds a line to it.
function appendPointOf(meta: RolloutMeta | null, last: RolloutRecord | null, recordsWithOrdinal: number): AppendPoint {
  if (meta === null || last === null) return { kind: 'unwritable', reason: 'it has no session_meta record' };
  const mode = meta.historyMode;
  if (mode === 'paginated') {
    if (last.ordinal === null) return { kind: 'unwritable', reason: 'its final paginated rollout record is missing an ordinal' };
    return { kind: 'paginated', nextOrdinal: last.ordinal + 1 };
  }
  if (mode !== null && mode !== 'legacy') return { kind: 'unwritable', reason: `its session_meta has an unknown history_mode \`${mode}\`` };
  if (recordsWithOrdinal > 0) {
    return { kind: 'unwritable', reason: `its records carry ordinals but its session_meta ${mode === null ? 'has no history_mode' : 'says legacy'}` };
  }
  return { kind: 'legacy' };
}

function sessionMeta(p: Json, ts: number | null): { threadId: string | null; meta: RolloutMeta } {
  const base = p.base_instructions;
  const baseObj = obj(base);
  const mode = str(p.history_mode);
  return {
    threadId: str(p.id) ?? str(p.session_id),
    meta: {
      createdAtMs: parseTs(p.timestamp) ?? ts ?? 0,
      cwd: str(p.cwd) ?? '',
      originator: str(p.originator) ?? '',
      cliVersion: str(p.cli_version) ?? '',
      source: readSessionSource(p.source),
      modelProvider: str(p.model_provider),
      model: str(obj(baseObj?.provenance)?.model),
      baseInstructions: typeof base === 'string' ? base : str(baseObj?.text),
      historyMode: mode,
      forkedFromId: str(p.forked_from_id),
      dynamicTools: Array.isArray(p.dynamic_tools) && p.dynamic_tools.length > 0 ? p.dynamic_tools : null,
    },
  };
}

// `info` is null when the turn ended before any usage was reported (an interrupt, a failed
// request); the previous figures then stand.
function tokenUsage(p: Json): RolloutTokenUsage | null {
  const info = obj(p.info);
  if (info === null) return null;
  return {
    total: breakdown(obj(info.total_token_usage)),
    last: breakdown(obj(info.last_token_usage)),
    modelContextWindow: num(info.model_context_window) ?? DEFAULT_MODEL_CONTEXT_WINDOW,
  };
}

function breakdown(u: Json | null): TokenUsageBreakdown {
  return {
    totalTokens: num(u?.total_tokens) ?? 0,
    inputTokens: num(u?.input_tokens) ?? 0,
    cachedInputTokens: num(u?.cached_input_tokens) ?? 0,
    cacheWriteInputTokens: num(u?.cache_write_input_tokens) ?? 0,
    outputTokens: num(u?.output_tokens) ?? 0,
    reasoningOutputTokens: num(u?.reasoning_output_tokens) ?? 0,
  };
}

// The thread's preview, as the reference takes it: the first user message's text that is more
// than whitespace, trimmed (a thread whose first message is " " takes its second's).
function preview(turns: Turn[]): string {
  for (const turn of turns) {
    for (const item of turn.items) {
      if (item.type !== 'userMessage') continue;
      const text = item.content.find((c) => c.type === 'text');
      const trimmed = text?.type === 'text' ? text.text.trim() : '';
      if (trimmed !== '') return trimmed;
    }
  }
  return '';
}
