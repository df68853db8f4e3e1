// Rebuilds a thread's turns, and the conversation to replay to the model, from its rollout
// records. It reads the reference's legacy lines (`user_message`/`agent_message` events), its
// paginated lines (`item_completed`) and what rollout-lines.ts writes, following the
// reference's ThreadHistoryBuilder (codex-rs/app-server-protocol/src/protocol/thread_history.rs):
//
//   task_started            opens a turn (inProgress) with the event's turn id
//   user_message/agent_...  legacy items; ids come from the neighbouring response_item
//   item_completed          paginated items, upserted by id into the turn they name
//   error                   marks the open turn failed (unless the error kind does not count)
//   turn_aborted            marks the named turn interrupted
//   task_complete           closes the named turn: failed if it carries an `error` (0.171.0),
//                           else completed unless already failed/interrupted
//   compacted               replaces the conversation to replay (compaction.ts)
//
// A turn still inProgress at the end had no terminal event and is reported `interrupted`, as
// the reference does for a thread that is not running (spec §5.4). An interrupted turn keeps
// only the items that completed: the model's partial output never reaches the rollout. The
// `<turn_aborted>` note the harness adds as a user-role response item, and a user command's
// `<user_shell_command>` result, are no user items, but are part of the replayed conversation.

import type { ConversationMessage, ThreadItem, Turn, TurnError, TurnId, TurnStatus, UserMessageItem } from '../wire-types.js';
import type { Json, RolloutRecord } from './rollout-json.js';
import { num, obj, str } from './rollout-json.js';
import { compactedConversation, isSummaryMessage, summaryMessage } from './compaction.js';
import { toolConversationItem, toolItemOf } from './tool-items.js';
import {
  agentItem,
  coreUserInput,
  errorKind,
  isReplayedNote,
  isUserAuthored,
  legacyUserContent,
  messageText,
  turnError,
} from './rollout-items.js';

/**
 * Where a turn and its items sit in a paginated rollout: the ordinal of its `task_started` line
 * and of each item's `item_completed` line (null where the file has none, as in legacy history).
 * Paged reads use them as cursors, as the reference does.
 */
export interface TurnPosition {
  ordinal: number | null;
  items: (number | null)[];
}

/** What the builder rebuilds: the turns, where they sit, and the messages to replay to the model. */
export interface TurnHistory {
  turns: Turn[];
  /** One per turn, in the same order. */
  positions: TurnPosition[];
  messages: ConversationMessage[];
}

// ErrorEvent::affects_turn_status: these error kinds do not fail the turn.
const NON_FAILING_ERRORS = new Set(['thread_rollback_failed', 'active_turn_not_steerable']);

interface PendingTurn {
  turn: Turn;
  // Opened by task_started; an implicit turn (older rollouts) is one user message's worth.
  explicit: boolean;
  startedAtMs: number | null;
  // Items whose id is still unknown (a legacy event whose response_item has not been seen).
  unnamed: Set<ThreadItem>;
  ordinal: number | null;
  itemOrdinals: Map<ThreadItem, number>;
}

/** Feeds on rollout records in file order; `finish` once at the end. */
export class TurnHistoryBuilder {
  #turns: PendingTurn[] = [];
  #current: PendingTurn | null = null;
  #messages: ConversationMessage[] = [];
  // A legacy user response_item precedes its user_message event; an assistant one follows it.
  #userResponseId: string | null = null;
  #generatedIds = 0;

  /** Takes one record; `index` is its line number, used to name turns that have no id. */
  handle(record: RolloutRecord, index: number): void {
    if (record.type === 'response_item') this.#responseItem(record.payload);
    else if (record.type === 'compacted') this.#messages = compactedMessages(record.payload, this.#messages);
    else if (record.type === 'event_msg') this.#event(record.payload, record.ts, index, record.ordinal);
  }

  finish(): TurnHistory {
    this.#close();
    const positions = this.#turns.map((pending) => ({
      ordinal: pending.ordinal,
      items: pending.turn.items.map((item) => pending.itemOrdinals.get(item) ?? null),
    }));
    return { turns: this.#turns.map((pending) => this.#materialise(pending)), positions, messages: this.#messages };
  }

  #responseItem(p: Json): void {
    const call = toolConversationItem(p);
    if (call !== null) this.#messages.push(call);
    if (p.type !== 'message') return;
    const text = messageText(p.content);
    const id = str(p.id);
    if (p.role === 'user') {
      // Harness notes such as `<turn_aborted>` must not name the next legacy user item either;
      // an interrupt's note and a user command's result are replayed to the model, as the
      // reference replays them, without being items.
      if (!isUserAuthored(p, text)) {
        if (isReplayedNote(p, text)) this.#messages.push({ role: 'user', text });
        return;
      }
      // A message is replayed as its parts (the model's content, data URLs and all), unless it is one text.
      const parts = Array.isArray(p.content) && p.content.length > 0 && !(p.content.length === 1 && obj(p.content[0])?.type === 'input_text') ? (p.content as unknown[]) : undefined;
      this.#messages.push(parts === undefined ? { role: 'user', text } : { role: 'user', text, parts });
      // The reference names it `msg_<uuid>`; the item id is the bare uuid.
      this.#userResponseId = id?.startsWith('msg_') ? id.slice(4) : id;
    } else if (p.role === 'assistant') {
      // A compaction's summary is one too, until the `compacted` record after it replaces the lot.
      if (text !== '') this.#messages.push({ role: 'assistant', text });
      const unnamed = this.#current === null ? undefined : [...this.#current.unnamed].reverse();
      const target = unnamed?.find((item) => item.type === 'agentMessage' && item.text === text);
      if (target !== undefined && id !== null) {
        target.id = id;
        this.#current?.unnamed.delete(target);
      }
    }
  }

  #event(p: Json, ts: number | null, index: number, ordinal: number | null): void {
    // `turn_*` are the v2 aliases the reference also accepts for `task_*`.
    switch (p.type) {
      case 'task_started': case 'turn_started': return this.#turnStarted(p, ts, ordinal);
      case 'task_complete': case 'turn_complete': return this.#turnCompleted(p, ts);
      case 'turn_aborted': return this.#turnAborted(p, ts);
      case 'error': return this.#errorEvent(p);
      case 'user_message': return this.#legacyUser(p, ts, index);
      case 'agent_message': return this.#legacyAgent(p, ts, index);
      case 'item_completed': return this.#itemCompleted(p, ts, index, ordinal);
    }
  }

  #turnStarted(p: Json, ts: number | null, ordinal: number | null): void {
    this.#close();
    const id = (str(p.turn_id) ?? `rollout-${this.#turns.length}`) as TurnId;
    this.#current = {
      turn: emptyTurn(id, (str(p.root_turn_id) ?? id) as TurnId, 'inProgress'),
      explicit: true,
      startedAtMs: ts,
      unnamed: new Set(),
      ordinal,
      itemOrdinals: new Map(),
    };
    this.#current.turn.startedAt = num(p.started_at) ?? (ts === null ? null : Math.floor(ts / 1000));
    this.#userResponseId = null;
  }

  // 0.171.0 records a failed turn as a task_complete whose `error` says why; older releases
  // wrote an `error` event first and a plain task_complete after it.
  #turnCompleted(p: Json, ts: number | null): void {
    const pending = this.#endedTurn(p);
    if (pending === null) return;
    const error = obj(p.error);
    if (error !== null) fail(pending.turn, turnError(error));
    else if (pending.turn.status === 'inProgress') pending.turn.status = 'completed';
    this.#stamp(pending, p, ts);
    if (pending === this.#current) this.#close();
  }

  // The turn stays current: nothing after an abort belongs to another turn until task_started.
  #turnAborted(p: Json, ts: number | null): void {
    const pending = this.#endedTurn(p);
    if (pending === null) return;
    pending.turn.status = 'interrupted';
    this.#stamp(pending, p, ts);
  }

  #errorEvent(p: Json): void {
    const kind = errorKind(p);
    if (kind !== undefined && NON_FAILING_ERRORS.has(kind)) return;
    if (this.#current !== null) fail(this.#current.turn, turnError(p));
  }

  // The turn a terminal event names, else the open one.
  #endedTurn(p: Json): PendingTurn | null {
    const turnId = str(p.turn_id);
    const named = turnId === null ? undefined : [this.#current, ...this.#turns].find((t) => t?.turn.id === turnId);
    return named ?? this.#current;
  }

  #stamp(pending: PendingTurn, p: Json, ts: number | null): void {
    pending.turn.completedAt = num(p.completed_at) ?? (ts === null ? null : Math.floor(ts / 1000));
    pending.turn.durationMs =
      num(p.duration_ms) ?? (ts !== null && pending.startedAtMs !== null ? ts - pending.startedAtMs : null);
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

  #itemCompleted(p: Json, ts: number | null, index: number, ordinal: number | null): void {
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
    } else if (core.type === 'ContextCompaction') {
      item = { type: 'contextCompaction', id, startedAtMs, completedAtMs };
    } else {
      const tool = toolItemOf(core, id, startedAtMs, completedAtMs);
      if (tool === null) return;
      item = tool;
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
      pending.itemOrdinals.delete(twin);
    }
    if (ordinal !== null) pending.itemOrdinals.set(item, ordinal);
  }

  #ensureTurn(index: number): PendingTurn {
    this.#current ??= {
      turn: emptyTurn(`rollout-${index}` as TurnId, `rollout-${index}` as TurnId, 'completed'),
      explicit: false,
      startedAtMs: null,
      unnamed: new Set(),
      ordinal: null,
      itemOrdinals: new Map(),
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

/**
 * The conversation a `compacted` record leaves: its `replacement_history`'s user and assistant
 * messages that are the user's words or a summary (the harness's injected context is not
 * replayed by this host), else, in rollouts without one, the user's messages before it and
 * the summary.
 */
function compactedMessages(p: Json, before: ConversationMessage[]): ConversationMessage[] {
  const message = str(p.message) ?? '';
  const summary = isSummaryMessage(message) ? message : summaryMessage(message);
  if (!Array.isArray(p.replacement_history)) return compactedConversation(before, summary);
  const kept: ConversationMessage[] = [];
  for (const raw of p.replacement_history) {
    const item = obj(raw);
    if (item === null || item.type !== 'message') continue;
    const text = messageText(item.content);
    if (item.role === 'assistant' && text !== '') kept.push({ role: 'assistant', text });
    else if (item.role === 'user' && (isSummaryMessage(text) || isUserAuthored(item, text))) kept.push({ role: 'user', text });
  }
  return kept;
}

function fail(turn: Turn, error: TurnError): void {
  turn.status = 'failed';
  turn.error = error;
}

function emptyTurn(id: TurnId, rootTurnId: TurnId, status: TurnStatus): Turn {
  return { id, rootTurnId, items: [], itemsView: 'full', status, error: null, startedAt: null, completedAt: null, durationMs: null };
}

function sameText(a: ThreadItem, b: ThreadItem): boolean {
  if (a.type === 'agentMessage' && b.type === 'agentMessage') return a.text === b.text;
  if (a.type === 'userMessage' && b.type === 'userMessage') return JSON.stringify(a.content) === JSON.stringify(b.content);
  return false;
}
