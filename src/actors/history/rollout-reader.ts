// Rebuilds a thread from its rollout: turns for `thread/resume`/`thread/read`, the message list
// to replay to the model, and the summary fields. It reads the reference's legacy lines
// (`user_message`/`agent_message` events), its paginated lines (`item_completed`) and what
// rollout-lines.ts writes, following the reference's ThreadHistoryBuilder
// (codex-rs/app-server-protocol/src/protocol/thread_history.rs):
//
//   task_started            opens a turn (inProgress) with the event's turn id
//   user_message/agent_...  legacy items; ids come from the neighbouring response_item
//   item_completed          paginated items, upserted by id into the turn they name
//   error                   marks the open turn failed (unless the error kind does not count)
//   turn_aborted            marks the named turn interrupted
//   task_complete           closes the turn: completed, unless already failed/interrupted
//
// A turn still inProgress at the end had no terminal event and is reported `interrupted`, as
// the reference does for a thread that is not running (spec §5.4).

import { readFile } from 'node:fs/promises';
import type {
  AgentMessageItem,
  ConversationMessage,
  ThreadItem,
  TextElement,
  TokenUsageBreakdown,
  Turn,
  TurnError,
  TurnId,
  TurnStatus,
  UserInput,
  UserMessageItem,
} from '../thread-types.js';
import { DEFAULT_MODEL_CONTEXT_WINDOW } from '../thread-types.js';

/** Thread-level facts from `session_meta` (model: the latest `turn_context`'s). */
export interface RolloutMeta {
  createdAtMs: number;
  cwd: string;
  originator: string;
  cliVersion: string;
  source: string;
  modelProvider: string;
  model: string | null;
  baseInstructions: string | null;
  historyMode: 'legacy' | 'paginated' | null;
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
  messages: ConversationMessage[];
  preview: string;
  lastTokenUsage: RolloutTokenUsage | null;
  /** Timestamp of the last line (ms); 0 for an empty file. */
  updatedAtMs: number;
  lastTurnId: string | null;
  /** Unparseable lines other than a torn last line. */
  skippedLines: number;
}

type Json = Record<string, unknown>;

// Opening tags of the user-role messages the harness injects; used only for rollouts whose
// response items predate `content_item_kinds`.
const HARNESS_PREFIXES = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<turn_aborted>'];
// ErrorEvent::affects_turn_status: these error kinds do not fail the turn.
const NON_FAILING_ERRORS = new Set(['thread_rollback_failed', 'active_turn_not_steerable']);

/** Reads and parses a rollout file. */
export async function readRollout(path: string): Promise<ParsedRollout> {
  return parseRollout(await readFile(path, 'utf8'));
}

/** Parses rollout text. A torn (unparseable) last line is ignored silently. */
export function parseRollout(text: string): ParsedRollout {
  const raw = text.split('\n');
  let lastIndex = raw.length - 1;
  while (lastIndex >= 0 && (raw[lastIndex] as string).trim() === '') lastIndex -= 1;
  const builder = new HistoryBuilder();
  let skippedLines = 0;
  for (let i = 0; i <= lastIndex; i += 1) {
    const source = raw[i] as string;
    if (source.trim() === '') continue;
    const record = parseLine(source);
    if (record === null) {
      // The writer crashed mid-write: only the last line can be torn, so that one is expected.
      if (i !== lastIndex) skippedLines += 1;
      continue;
    }
    builder.handle(record, i);
  }
  return builder.finish(skippedLines);
}

interface PendingTurn {
  turn: Turn;
  explicit: boolean;
  startedAtMs: number | null;
  // Items whose id is still unknown (a legacy event whose response_item has not been seen).
  unnamed: Set<ThreadItem>;
}

class HistoryBuilder {
  #turns: PendingTurn[] = [];
  #current: PendingTurn | null = null;
  #meta: RolloutMeta | null = null;
  #threadId: string | null = null;
  #latestModel: string | null = null;
  #messages: ConversationMessage[] = [];
  #usage: RolloutTokenUsage | null = null;
  #updatedAtMs = 0;
  // A legacy user response_item precedes its user_message event; an assistant one follows it.
  #userResponseId: string | null = null;
  #generatedIds = 0;

  handle(record: { ts: number | null; type: string; payload: Json }, index: number): void {
    const { ts, type, payload } = record;
    if (ts !== null) this.#updatedAtMs = ts;
    if (type === 'session_meta') this.#sessionMeta(payload, ts);
    else if (type === 'turn_context') this.#latestModel = str(payload.model) ?? this.#latestModel;
    else if (type === 'response_item') this.#responseItem(payload);
    else if (type === 'event_msg') this.#event(payload, ts, index);
  }

  finish(skippedLines: number): ParsedRollout {
    this.#close();
    const turns = this.#turns.map((pending) => this.#materialise(pending));
    const meta = this.#meta === null ? null : { ...this.#meta, model: this.#latestModel ?? this.#meta.model };
    const firstUser = turns.flatMap((t) => t.items).find((item) => item.type === 'userMessage');
    const firstText = firstUser?.type === 'userMessage' ? firstUser.content.find((c) => c.type === 'text') : undefined;
    return {
      threadId: this.#threadId,
      meta,
      turns,
      messages: this.#messages,
      preview: firstText?.type === 'text' ? firstText.text : '',
      lastTokenUsage: this.#usage,
      updatedAtMs: this.#updatedAtMs,
      lastTurnId: turns.at(-1)?.id ?? null,
      skippedLines,
    };
  }

  #sessionMeta(p: Json, ts: number | null): void {
    if (this.#meta !== null) return; // a fork may copy its parent's meta later on; the first wins
    const base = p.base_instructions;
    const baseObj = obj(base);
    const mode = str(p.history_mode);
    this.#threadId = str(p.id) ?? str(p.session_id);
    this.#meta = {
      createdAtMs: parseTs(p.timestamp) ?? ts ?? 0,
      cwd: str(p.cwd) ?? '',
      originator: str(p.originator) ?? '',
      cliVersion: str(p.cli_version) ?? '',
      source: str(p.source) ?? 'unknown',
      modelProvider: str(p.model_provider) ?? '',
      model: str(obj(baseObj?.provenance)?.model),
      baseInstructions: typeof base === 'string' ? base : str(baseObj?.text),
      historyMode: mode === 'legacy' || mode === 'paginated' ? mode : null,
    };
  }

  #responseItem(p: Json): void {
    if (p.type !== 'message') return;
    const text = messageText(p.content);
    const id = str(p.id);
    if (p.role === 'user') {
      if (!isUserAuthored(p, text)) return;
      this.#messages.push({ role: 'user', text });
      // The reference names it `msg_<uuid>`; the item id is the bare uuid.
      this.#userResponseId = id?.startsWith('msg_') ? id.slice(4) : id;
    } else if (p.role === 'assistant') {
      if (text !== '') this.#messages.push({ role: 'assistant', text });
      const unnamed = this.#current === null ? undefined : [...this.#current.unnamed].reverse();
      const target = unnamed?.find((item) => item.type === 'agentMessage' && item.text === text);
      if (target !== undefined && id !== null) {
        target.id = id;
        this.#current?.unnamed.delete(target);
      }
    }
  }

  #event(p: Json, ts: number | null, index: number): void {
    // `turn_*` are the v2 aliases the reference also accepts for `task_*`.
    switch (p.type) {
      case 'task_started': case 'turn_started': return this.#turnStarted(p, ts);
      case 'task_complete': case 'turn_complete':
        // 0.171.0 records a failed turn as a task_complete carrying `error`.
        if (obj(p.error) !== null) this.#error(obj(p.error)!);
        return this.#turnEnded(p, ts, 'completed');
      case 'turn_aborted': return this.#turnEnded(p, ts, 'interrupted');
      case 'error': return this.#error(p);
      case 'user_message': return this.#legacyUser(p, ts, index);
      case 'agent_message': return this.#legacyAgent(p, ts, index);
      case 'item_completed': return this.#itemCompleted(p, ts, index);
      case 'token_count': return this.#tokenCount(p);
    }
  }

  #turnStarted(p: Json, ts: number | null): void {
    this.#close();
    const id = (str(p.turn_id) ?? `rollout-${this.#turns.length}`) as TurnId;
    this.#current = {
      turn: emptyTurn(id, (str(p.root_turn_id) ?? id) as TurnId, 'inProgress'),
      explicit: true,
      startedAtMs: ts,
      unnamed: new Set(),
    };
    this.#current.turn.startedAt = num(p.started_at) ?? (ts === null ? null : Math.floor(ts / 1000));
    this.#userResponseId = null;
  }

  // task_complete and turn_aborted: find the named turn (else the open one) and close it.
  #turnEnded(p: Json, ts: number | null, outcome: 'completed' | 'interrupted'): void {
    const turnId = str(p.turn_id);
    const named = turnId === null ? undefined : [this.#current, ...this.#turns].find((t) => t?.turn.id === turnId);
    const pending = named ?? this.#current;
    if (pending === null || pending === undefined) return;
    const turn = pending.turn;
    if (outcome === 'interrupted') turn.status = 'interrupted';
    else if (turn.status === 'inProgress' || turn.status === 'completed') turn.status = 'completed';
    turn.completedAt = num(p.completed_at) ?? (ts === null ? null : Math.floor(ts / 1000));
    turn.durationMs =
      num(p.duration_ms) ?? (ts !== null && pending.startedAtMs !== null ? ts - pending.startedAtMs : null);
    if (outcome === 'completed' && pending === this.#current) this.#close();
  }

  #error(p: Json): void {
    const info = p.codex_error_info;
    const kind = typeof info === 'string' ? info : Object.keys(obj(info) ?? {})[0];
    if (kind !== undefined && NON_FAILING_ERRORS.has(kind)) return;
    if (this.#current === null) return;
    const error: TurnError = {
      message: str(p.message) ?? '',
      codexErrorInfo: kind === undefined ? null : snakeToCamel(kind),
      additionalDetails: null,
      misalignment: null,
    };
    this.#current.turn.status = 'failed';
    this.#current.turn.error = error;
  }

  #legacyUser(p: Json, ts: number | null, index: number): void {
    // Older rollouts have no task_started: each user message then opens its own turn.
    if (this.#current !== null && !this.#current.explicit) this.#close();
    const pending = this.#ensureTurn(index);
    const item: UserMessageItem = {
      type: 'userMessage',
      id: '',
      clientId: str(p.client_id),
      content: legacyUserContent(p),
      startedAtMs: ts,
      completedAtMs: ts,
    };
    pending.turn.items.push(item);
    if (this.#userResponseId === null) pending.unnamed.add(item);
    else item.id = this.#userResponseId;
    this.#userResponseId = null;
  }

  #legacyAgent(p: Json, ts: number | null, index: number): void {
    const text = str(p.message) ?? '';
    if (text === '') return;
    const pending = this.#ensureTurn(index);
    // Some legacy writers also persist the agent's item_completed; if it came first, keep it.
    const last = pending.turn.items.at(-1);
    if (last?.type === 'agentMessage' && last.text === text && !pending.unnamed.has(last)) return;
    const item = agentItem('', text, ts, ts);
    pending.turn.items.push(item);
    pending.unnamed.add(item);
  }

  #itemCompleted(p: Json, ts: number | null, index: number): void {
    const core = obj(p.item);
    const id = str(core?.id);
    if (core === null || id === null) return;
    const completedAtMs = num(p.completed_at_ms) ?? ts;
    const startedAtMs = num(p.started_at_ms) ?? completedAtMs;
    let item: ThreadItem;
    if (core.type === 'UserMessage') {
      const content = Array.isArray(core.content) ? core.content.flatMap(coreUserInput) : [];
      item = { type: 'userMessage', id, clientId: str(core.client_id), content, startedAtMs, completedAtMs };
    } else if (core.type === 'AgentMessage') {
      item = agentItem(id, messageText(core.content), startedAtMs, completedAtMs);
    } else {
      return;
    }
    const turnId = str(p.turn_id);
    const pending = [this.#current, ...this.#turns].find((t) => t?.turn.id === turnId) ?? this.#ensureTurn(index);
    const items = pending.turn.items;
    // Upsert: same id, else the legacy twin of this item that is still waiting for its id.
    const twin =
      items.find((existing) => existing.id === id && existing.type === item.type) ??
      [...pending.unnamed].find((u) => u.type === item.type && sameText(u, item));
    if (twin === undefined) items.push(item);
    else {
      items[items.indexOf(twin)] = item;
      pending.unnamed.delete(twin);
    }
  }

  #tokenCount(p: Json): void {
    const info = obj(p.info);
    if (info === null) return;
    this.#usage = {
      total: breakdown(obj(info.total_token_usage)),
      last: breakdown(obj(info.last_token_usage)),
      modelContextWindow: num(info.model_context_window) ?? DEFAULT_MODEL_CONTEXT_WINDOW,
    };
  }

  #ensureTurn(index: number): PendingTurn {
    this.#current ??= {
      turn: emptyTurn(`rollout-${index}` as TurnId, `rollout-${index}` as TurnId, 'completed'),
      explicit: false,
      startedAtMs: null,
      unnamed: new Set(),
    };
    return this.#current;
  }

  #close(): void {
    const pending = this.#current;
    this.#current = null;
    if (pending === null || (pending.turn.items.length === 0 && !pending.explicit)) return;
    this.#turns.push(pending);
  }

  #materialise(pending: PendingTurn): Turn {
    // Items whose id never showed up get the reference's positional `item-N` names.
    for (const item of pending.unnamed) item.id = `item-${++this.#generatedIds}`;
    pending.unnamed.clear();
    const turn = pending.turn;
    // No terminal event and the thread is not running: the turn was interrupted.
    return turn.status === 'inProgress' ? { ...turn, status: 'interrupted' } : { ...turn };
  }
}

function emptyTurn(id: TurnId, rootTurnId: TurnId, status: TurnStatus): Turn {
  return { id, rootTurnId, items: [], itemsView: 'full', status, error: null, startedAt: null, completedAt: null, durationMs: null };
}

function agentItem(id: string, text: string, startedAtMs: number | null, completedAtMs: number | null): AgentMessageItem {
  const unset = { moderation: null, phase: null, memoryCitation: null, delivery: null, questions: null };
  return { type: 'agentMessage', ...unset, id, text, startedAtMs, completedAtMs };
}

function sameText(a: ThreadItem, b: ThreadItem): boolean {
  if (a.type === 'agentMessage' && b.type === 'agentMessage') return a.text === b.text;
  if (a.type === 'userMessage' && b.type === 'userMessage') return JSON.stringify(a.content) === JSON.stringify(b.content);
  return false;
}

// The reference's build_user_inputs: the text (if not blank), then images, then local images.
function legacyUserContent(p: Json): UserInput[] {
  const content: UserInput[] = [];
  const message = str(p.message) ?? '';
  if (message.trim() !== '') content.push({ type: 'text', text: message, text_elements: textElements(p.text_elements) });
  for (const url of strings(p.images)) content.push({ type: 'image', url });
  for (const path of strings(p.local_images)) content.push({ type: 'localImage', path });
  return content;
}

// Core `UserInput` (snake_case tags) to the wire's.
function coreUserInput(value: unknown): UserInput[] {
  const v = obj(value);
  if (v === null) return [];
  const name = str(v.name) ?? '';
  const path = str(v.path) ?? '';
  switch (v.type) {
    case 'text':
      return [{ type: 'text', text: str(v.text) ?? '', text_elements: textElements(v.text_elements) }];
    case 'image':
      return [{ type: 'image', url: str(v.image_url) ?? str(v.url) ?? '' }];
    case 'local_image':
      return [{ type: 'localImage', path }];
    case 'skill':
      return [{ type: 'skill', name, path }];
    case 'mention':
      return [{ type: 'mention', name, path }];
    default:
      return [];
  }
}

function textElements(value: unknown): TextElement[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw) => {
    const el = obj(raw);
    const range = obj(el?.byte_range ?? el?.byteRange);
    if (el === null || range === null) return [];
    return [{ byteRange: { start: num(range.start) ?? 0, end: num(range.end) ?? 0 }, placeholder: str(el.placeholder) }];
  });
}

function isUserAuthored(p: Json, text: string): boolean {
  const kinds = obj(p.internal_chat_message_metadata_passthrough)?.content_item_kinds;
  if (Array.isArray(kinds) && kinds.length > 0) {
    return kinds.every((kind) => typeof kind === 'string' && kind.startsWith('user.'));
  }
  const start = text.trimStart();
  return !HARNESS_PREFIXES.some((prefix) => start.startsWith(prefix));
}

// Concatenates the text parts of a message (`input_text`, `output_text`, or core `Text`).
function messageText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((part) => str(obj(part)?.text) ?? '').join('');
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

function snakeToCamel(value: string): string {
  return value.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

function parseLine(source: string): { ts: number | null; type: string; payload: Json } | null {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return null;
  }
  const record = obj(value);
  if (record === null || typeof record.type !== 'string') return null;
  return { ts: parseTs(record.timestamp), type: record.type, payload: obj(record.payload) ?? {} };
}

// Lenient accessors: a field of the wrong type reads as absent rather than failing the file.
const parseTs = (v: unknown): number | null => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : null);
const obj = (v: unknown): Json | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
