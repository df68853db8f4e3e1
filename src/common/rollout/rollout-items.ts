// Converts rollout payloads (core, snake_case) into the wire's thread items, user inputs and
// turn errors (camelCase). Pure functions; the turn history builder decides where they go.

import type { AgentMessageItem, TextElement, TurnError, UserInput } from '../wire-types.js';
import type { Json } from './rollout-json.js';
import { num, obj, str, strings } from './rollout-json.js';

// Opening tags of the user-role messages the harness injects; used only for rollouts whose
// response items predate `content_item_kinds`.
const HARNESS_PREFIXES = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<turn_aborted>'];

/** An agent message item; the fields the rollout does not record are null. */
export function agentItem(id: string, text: string, startedAtMs: number | null, completedAtMs: number | null): AgentMessageItem {
  // The reference's key order, which the wire shows as is.
  return { type: 'agentMessage', moderation: null, id, text, phase: null, memoryCitation: null, delivery: null, questions: null, startedAtMs, completedAtMs };
}

/** The reference's build_user_inputs for a legacy `user_message`: text (if not blank), images, local images. */
export function legacyUserContent(p: Json): UserInput[] {
  const content: UserInput[] = [];
  const message = str(p.message) ?? '';
  if (message.trim() !== '') content.push({ type: 'text', text: message, text_elements: textElements(p.text_elements) });
  for (const url of strings(p.images)) content.push({ type: 'image', url, detail: null });
  for (const path of strings(p.local_images)) content.push({ type: 'localImage', detail: null, path });
  return content;
}

/** A core `UserInput` (snake_case tags) as the wire's; unknown kinds are dropped. */
export function coreUserInput(value: unknown): UserInput[] {
  const v = obj(value);
  if (v === null) return [];
  const name = str(v.name) ?? '';
  const path = str(v.path) ?? '';
  switch (v.type) {
    case 'text':
      return [{ type: 'text', text: str(v.text) ?? '', text_elements: textElements(v.text_elements) }];
    case 'image':
      return [{ type: 'image', url: str(v.image_url) ?? str(v.url) ?? '', detail: str(v.detail) }];
    case 'local_image':
      return [{ type: 'localImage', detail: str(v.detail), path }];
    case 'skill':
      return [{ type: 'skill', name, path }];
    case 'mention':
      return [{ type: 'mention', name, path }];
    default:
      return [];
  }
}

/**
 * A turn error from an `error` event or a failed `task_complete`'s `error`. `codex_error_info`
 * is a snake_case unit variant (`"internal_server_error"`) or a one-key object naming the
 * variant (`{"response_stream_disconnected":{…}}`); the wire carries the name in camelCase.
 */
export function turnError(p: Json): TurnError {
  const kind = errorKind(p);
  return {
    message: str(p.message) ?? '',
    codexErrorInfo: kind === undefined ? null : snakeToCamel(kind),
    additionalDetails: null,
    misalignment: null,
  };
}

/** The snake_case variant name of an error's `codex_error_info`, if it has one. */
export function errorKind(p: Json): string | undefined {
  const info = p.codex_error_info;
  return typeof info === 'string' ? info : Object.keys(obj(info) ?? {})[0];
}

/**
 * Whether a user-role response item is the user's own words rather than something the harness
 * injected (`<environment_context>`, `<turn_aborted>`, …). Newer rollouts say so in
 * `content_item_kinds` (`user.text` vs `generic.turn_aborted`); older ones only by the text.
 */
export function isUserAuthored(p: Json, text: string): boolean {
  const kinds = obj(p.internal_chat_message_metadata_passthrough)?.content_item_kinds;
  if (Array.isArray(kinds) && kinds.length > 0) {
    return kinds.every((kind) => typeof kind === 'string' && kind.startsWith('user.'));
  }
  const start = text.trimStart();
  return !HARNESS_PREFIXES.some((prefix) => start.startsWith(prefix));
}

// The harness's notes the reference replays to the model with the conversation (an interrupted
// turn's, a user command's result), by kind and, in rollouts without kinds, by their opening tag.
const REPLAYED_NOTE_KINDS = new Set(['generic.turn_aborted', 'shell.user_command']);
const REPLAYED_NOTE_PREFIXES = ['<turn_aborted>', '<user_shell_command>'];

/** Whether a user-role response item the harness wrote is given to the model again on later samplings. */
export function isReplayedNote(p: Json, text: string): boolean {
  const kinds = obj(p.internal_chat_message_metadata_passthrough)?.content_item_kinds;
  if (Array.isArray(kinds) && kinds.length > 0) return kinds.every((kind) => typeof kind === 'string' && REPLAYED_NOTE_KINDS.has(kind));
  return isHarnessNoteText(text);
}

/** Whether a message's text is one of those notes (the conversation keeps them as user messages). */
export function isHarnessNoteText(text: string): boolean {
  return REPLAYED_NOTE_PREFIXES.some((prefix) => text.startsWith(prefix));
}

/** Concatenates the text parts of a message (`input_text`, `output_text`, or core `Text`). */
export function messageText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.map((part) => str(obj(part)?.text) ?? '').join('');
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

function snakeToCamel(value: string): string {
  return value.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
