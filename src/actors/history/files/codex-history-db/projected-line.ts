// One rollout line, as the reference (codex 0.171.0) projects it into its paginated history
// database: the turn and item changes its stateless `project_rollout_line` derives from the
// line alone. Only the records thread-host writes itself are accepted, in the shapes it writes
// them (rollout-lines.ts); anything else is refused, so that a tail this file cannot project
// exactly is left to the reference's own catch-up at its next resume.
//
// Every value is taken from the line, never from what the actor remembers, because the
// reference's rebuild reads the same line: a user message's `clientId` is null in the database
// because the line does not carry it, whatever the client sent.
//
// Each mapping below was checked against the binary (test/fixtures/codex-history-db/README.md).

import { toolItemOf } from '../../../../common/rollout/tool-items.js';
import type { ToolCallItem } from '../../../../common/wire-types.js';

/** A turn's state after one line (`ThreadHistoryTurnChange`). */
export interface TurnChange {
  turnId: string;
  status: 'inProgress' | 'completed' | 'failed' | 'interrupted';
  /** The v2 `TurnError` as the reference serialises it, or null. */
  errorJson: string | null;
  startedAt: number | null;
  completedAt: number | null;
  durationMs: number | null;
  rootTurnId: string | null;
}

/** A completed item (`ThreadHistoryItemChange`), its v2 `ThreadItem` serialised. */
export interface ItemChange {
  turnId: string;
  itemId: string;
  itemType: 'userMessage' | 'agentMessage' | ToolCallItem['type'];
  itemJson: string;
  startedAtMs: number;
  completedAtMs: number;
}

/** What one line contributes; most records move the checkpoint only. */
export interface ProjectedLine {
  ordinal: number;
  turns: TurnChange[];
  items: ItemChange[];
  /**
   * A fork's session_meta (history-base.ts): its ordinal goes on from its base's, so the file's
   * first line may start there. The reference projects only the fork's own lines.
   */
  opensFork?: true;
}

export type LineVerdict = { kind: 'line'; line: ProjectedLine } | { kind: 'refused'; reason: string };

type Json = Record<string, unknown>;

// The snake_case `CodexErrorInfo` unit variants thread-host writes (turn/turn-error.ts), and
// their v2 spelling. An unknown variant reads back as `other` in the reference; thread-host never
// writes one, so one here means the line is not ours.
const ERROR_INFO: Record<string, string> = {
  other: 'other',
  internal_server_error: 'internalServerError',
  server_overloaded: 'serverOverloaded',
  context_window_exceeded: 'contextWindowExceeded',
  usage_limit_exceeded: 'usageLimitExceeded',
  rate_limit_exceeded: 'rateLimitExceeded',
  bad_request: 'badRequest',
};

class NotOurs extends Error {}

// The response items of a tool call, which the reference's projection does not project.
const TOOL_RESPONSE_ITEMS = new Set(['function_call', 'custom_tool_call', 'function_call_output', 'custom_tool_call_output']);
// A user message's parts as thread-host labels them: the user's text and images, the
// harness's note for an image it could not prepare, an interrupted turn's note and a user
// command's result (no inter-agent messages either).
const USER_CONTENT_KINDS = new Set(['user.text', 'user.image', 'images.preparation_error', 'unknown', 'generic.turn_aborted', 'shell.user_command']);

/** Projects one complete line (without its newline); refuses what thread-host does not write. */
export function projectLine(text: string): LineVerdict {
  try {
    return { kind: 'line', line: project(text) };
  } catch (error) {
    if (error instanceof NotOurs) return { kind: 'refused', reason: error.message };
    throw error;
  }
}

function project(text: string): ProjectedLine {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    throw new NotOurs('a line that is not JSON');
  }
  const line = object(record, 'a line');
  const ordinal = line.ordinal;
  if (typeof ordinal !== 'number' || !Number.isSafeInteger(ordinal) || ordinal < 0) throw new NotOurs('a line without an ordinal');
  string(line.timestamp, 'timestamp');
  const payload = object(line.payload, `a ${String(line.type)} payload`);
  const none: ProjectedLine = { ordinal, turns: [], items: [] };
  switch (line.type) {
    case 'session_meta':
      // A sub-agent's start would shift what the reference projects.
      if ('subagent_history_start_ordinal' in payload) throw new NotOurs('a session_meta with a sub-agent history start');
      if (!('history_base' in payload)) return none;
      if (object(payload.history_base, 'a history base').end_ordinal_exclusive !== ordinal) throw new NotOurs('a history base that does not end where the fork starts');
      return { ...none, opensFork: true };
    case 'turn_context':
      return none;
    case 'response_item':
      return responseItem(payload, none);
    case 'event_msg':
      return { ...none, ...event(payload) };
    default:
      throw new NotOurs(`a ${String(line.type)} record`);
  }
}

// The user's and the model's messages as the model sees them: the reference projects only
// inter-agent messages from response items, and these are never those.
function responseItem(payload: Json, none: ProjectedLine): ProjectedLine {
  // A tool call and its output are no inter-agent message either: nothing to project.
  if (typeof payload.type === 'string' && TOOL_RESPONSE_ITEMS.has(payload.type)) return none;
  const role = payload.role;
  if (payload.type !== 'message' || (role !== 'user' && role !== 'assistant')) throw new NotOurs('a response item thread-host does not write');
  const allowed = role === 'user' ? ['input_text', 'input_image'] : ['output_text'];
  for (const part of array(payload.content, 'message content')) {
    if (!allowed.includes(String(object(part, 'a content part').type))) throw new NotOurs('a response item thread-host does not write');
  }
  const passthrough = object(payload.internal_chat_message_metadata_passthrough, 'message metadata');
  const kinds = array(passthrough.content_item_kinds, 'content item kinds');
  if (!kinds.every((kind) => USER_CONTENT_KINDS.has(String(kind)))) throw new NotOurs('an inter-agent message');
  return none;
}

function event(payload: Json): Pick<ProjectedLine, 'turns' | 'items'> {
  switch (payload.type) {
    case 'task_started':
      return { turns: [turn(payload, 'inProgress', null)], items: [] };
    case 'task_complete': {
      const error = payload.error === undefined || payload.error === null ? null : turnError(object(payload.error, 'a turn error'));
      return { turns: [turn(payload, error === null ? 'completed' : 'failed', error)], items: [] };
    }
    case 'turn_aborted':
      return { turns: [turn(payload, 'interrupted', null)], items: [] };
    case 'item_completed':
      return { turns: [], items: [itemChange(payload)] };
    case 'token_count':
      return { turns: [], items: [] };
    default:
      throw new NotOurs(`an event_msg/${String(payload.type)} record`);
  }
}

function turn(payload: Json, status: TurnChange['status'], errorJson: string | null): TurnChange {
  const inProgress = status === 'inProgress';
  return {
    turnId: string(payload.turn_id, 'turn_id'),
    status,
    errorJson,
    startedAt: optionalInteger(payload.started_at, 'started_at'),
    completedAt: inProgress ? null : optionalInteger(payload.completed_at, 'completed_at'),
    durationMs: inProgress ? null : optionalInteger(payload.duration_ms, 'duration_ms'),
    rootTurnId: payload.root_turn_id === undefined ? null : string(payload.root_turn_id, 'root_turn_id'),
  };
}

// The v2 `TurnError`, with the reference's key order and its two always-null members.
function turnError(error: Json): string {
  const info = error.codex_error_info;
  let codexErrorInfo: string | null;
  if (info === null || info === undefined) codexErrorInfo = null;
  else if (typeof info === 'string' && Object.hasOwn(ERROR_INFO, info)) codexErrorInfo = ERROR_INFO[info]!;
  else throw new NotOurs('a turn error thread-host does not write');
  return JSON.stringify({ message: string(error.message, 'error message'), codexErrorInfo, additionalDetails: null, misalignment: null });
}

function itemChange(payload: Json): ItemChange {
  const turnId = string(payload.turn_id, 'turn_id');
  const item = object(payload.item, 'an item');
  const itemId = string(item.id, 'item id');
  const startedAtMs = integer(payload.started_at_ms, 'started_at_ms');
  const completedAtMs = integer(payload.completed_at_ms, 'completed_at_ms');
  if (item.type === 'UserMessage') {
    if ('client_id' in item) throw new NotOurs('a user message with a client id');
    const content = array(item.content, 'user content').map((part) => userInput(object(part, 'user input')));
    const json = JSON.stringify({ type: 'userMessage', id: itemId, clientId: null, content });
    return { turnId, itemId, itemType: 'userMessage', itemJson: json, startedAtMs, completedAtMs };
  }
  if (item.type === 'AgentMessage') {
    const parts = array(item.content, 'agent content').map((part) => object(part, 'agent content'));
    if (parts.length !== 1 || parts[0]!.type !== 'Text' || 'phase' in item) throw new NotOurs('an agent message thread-host does not write');
    const text = string(parts[0]!.text, 'agent text');
    const json = JSON.stringify({ type: 'agentMessage', moderation: null, id: itemId, text, phase: null, memoryCitation: null, delivery: null, questions: null });
    return { turnId, itemId, itemType: 'agentMessage', itemJson: json, startedAtMs, completedAtMs };
  }
  // A tool call's item, as the wire shows it (the live item/completed), times in their columns.
  const tool = toolItemOf(item, itemId, startedAtMs, completedAtMs);
  if (tool === null) throw new NotOurs(`an item of type ${String(item.type)}`);
  const { startedAtMs: _started, completedAtMs: _completed, ...wire } = tool;
  return { turnId, itemId, itemType: tool.type, itemJson: JSON.stringify(wire), startedAtMs, completedAtMs };
}

// Core `UserInput` (snake_case) to v2 `UserInput`, in the reference's key order.
function userInput(part: Json): Json {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: string(part.text, 'text'), text_elements: array(part.text_elements, 'text elements').map((el) => textElement(object(el, 'a text element'))) };
    case 'image':
      return { type: 'image', url: string(part.image_url, 'image url'), detail: null };
    case 'local_image':
      return { type: 'localImage', detail: null, path: string(part.path, 'image path') };
    case 'skill':
    case 'mention':
      return { type: part.type, name: string(part.name, 'name'), path: string(part.path, 'path') };
    default:
      throw new NotOurs(`a user input of type ${String(part.type)}`);
  }
}

function textElement(el: Json): Json {
  const range = object(el.byte_range, 'a byte range');
  const placeholder = el.placeholder === undefined || el.placeholder === null ? null : string(el.placeholder, 'placeholder');
  return { byteRange: { start: integer(range.start, 'start'), end: integer(range.end, 'end') }, placeholder };
}

function object(value: unknown, what: string): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new NotOurs(`${what} that is not an object`);
  return value as Json;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new NotOurs(`${what} that is not a list`);
  return value;
}

function string(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new NotOurs(`a ${what} that is not a string`);
  return value;
}

function integer(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new NotOurs(`a ${what} that is not an integer`);
  return value;
}

function optionalInteger(value: unknown, what: string): number | null {
  return value === undefined || value === null ? null : integer(value, what);
}
