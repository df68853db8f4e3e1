// The records of a turn's messages, the user's and the model's, as the reference writes them:
// the `response_item` the model sees, with the legacy event history is rebuilt from, or the
// paginated `item_completed` that carries the item in core spelling. See rollout-lines.ts for
// what is left out on purpose.
import type { AgentMessageItem, TextElement, UserMessageItem } from '../../common/wire-types.js';
import { event, line } from './record-line.js';
import type { ModelContent } from './rollout-format.js';

/**
 * The user's message: the `response_item` the model sees, then the legacy `user_message`
 * event that history is rebuilt from. The response item's id is `msg_<item id>`, the
 * reference's spelling; the reader strips the prefix to get the item id back.
 */
export function userMessage(item: UserMessageItem, nowMs: number, turnId?: string, modelContent?: ModelContent | null): string[] {
  const { message, textElements, images, imageDetails, localImages, localImageDetails } = legacyUserFields(item);
  return [
    userResponseItem(item, nowMs, turnId, modelContent),
    event(nowMs, {
      type: 'user_message',
      ...(item.clientId === null ? {} : { client_id: item.clientId }),
      message,
      images,
      ...detailsField('image_details', imageDetails),
      // Where each of `images` came from; the reference's are all inline.
      ...(images.length === 0 ? {} : { image_order: images.map(() => 'inline') }),
      local_images: localImages,
      ...detailsField('local_image_details', localImageDetails),
      audio: [],
      local_audio: [],
      text_elements: textElements,
    }),
  ];
}

/** The `response_item` that gives the model the user's message. */
export function userResponseItem(item: UserMessageItem, nowMs: number, turnId?: string, prepared?: ModelContent | null): string {
  const modelContent: unknown[] = prepared?.parts ?? [];
  const kinds: string[] = prepared?.kinds ?? [];
  for (const input of prepared == null ? item.content : []) {
    if (input.type === 'text') {
      modelContent.push({ type: 'input_text', text: input.text });
      kinds.push('user.text');
    } else if (input.type === 'image') {
      modelContent.push({ type: 'input_image', image_url: input.url });
      kinds.push('user.image');
    }
  }
  return line('response_item', nowMs, {
    type: 'message',
    id: `msg_${item.id}`,
    role: 'user',
    content: modelContent,
    internal_chat_message_metadata_passthrough: {
      ...(turnId === undefined ? {} : { turn_id: turnId }),
      create_time: nowMs / 1000,
      content_item_kinds: kinds,
      content_item_metadata: kinds.map((kind) => ({ provenance: kind === 'images.preparation_error' ? { type: 'harness', hook: false } : { type: 'user' } })),
    },
  });
}

// The legacy `user_message` event flattens the input as the reference does (probed): its texts
// run together, their element ranges shifted and each placeholder the text it covers, and the
// images apart, each list's details beside it. Skills and mentions have no legacy
// representation; the reference drops them too.
function legacyUserFields(item: UserMessageItem) {
  let message = '';
  const textElements: unknown[] = [];
  const images: string[] = [];
  const imageDetails: Array<string | null> = [];
  const localImages: string[] = [];
  const localImageDetails: Array<string | null> = [];
  for (const input of item.content) {
    if (input.type === 'text') {
      const offset = Buffer.byteLength(message, 'utf8');
      message += input.text;
      for (const el of input.text_elements) textElements.push(legacyTextElement(el, input.text, offset));
    } else if (input.type === 'image') {
      images.push(input.url);
      imageDetails.push(input.detail ?? null);
    } else if (input.type === 'localImage') {
      localImages.push(input.path);
      localImageDetails.push(input.detail ?? null);
    }
  }
  return { message, textElements, images, imageDetails, localImages, localImageDetails };
}

/** An element of the legacy event: its range shifted, its placeholder the text it covers when it has none. */
function legacyTextElement(el: TextElement, text: string, offset: number): Record<string, unknown> {
  const placeholder = el.placeholder ?? coveredText(text, el);
  return { byte_range: { start: el.byteRange.start + offset, end: el.byteRange.end + offset }, ...(placeholder === null ? {} : { placeholder }) };
}

/** The text an element's byte range covers; null when the range is not whole characters inside it. */
function coveredText(text: string, el: TextElement): string | null {
  const bytes = Buffer.from(text, 'utf8');
  const { start, end } = el.byteRange;
  if (start < 0 || end > bytes.length || start > end) return null;
  const covered = bytes.subarray(start, end).toString('utf8');
  return Buffer.byteLength(covered, 'utf8') === end - start && !covered.includes('\uFFFD') ? covered : null;
}

/** A details list as the reference writes it: without its trailing nulls, and not at all when none is left. */
function detailsField(name: string, details: Array<string | null>): Record<string, unknown> {
  let end = details.length;
  while (end > 0 && details[end - 1] === null) end -= 1;
  return end === 0 ? {} : { [name]: details.slice(0, end) };
}

/**
 * The assistant's final message: the legacy `agent_message` event (which has no id), then the
 * `response_item` that carries the model's item id. The reader pairs the two.
 */
export function agentMessage(item: AgentMessageItem, nowMs: number, turnId?: string): string[] {
  return [event(nowMs, { type: 'agent_message', message: item.text, phase: null, memory_citation: null }), agentResponseItem(item, nowMs, turnId)];
}

/** The `response_item` that records the model's message. */
export function agentResponseItem(item: AgentMessageItem, nowMs: number, turnId?: string): string {
  return line('response_item', nowMs, {
    type: 'message',
    id: item.id,
    role: 'assistant',
    content: [{ type: 'output_text', text: item.text }],
    internal_chat_message_metadata_passthrough: {
      ...(turnId === undefined ? {} : { turn_id: turnId }),
      content_item_kinds: ['unknown'],
    },
  });
}

/**
 * `event_msg/item_completed`: how paginated history records a finished item, with the item in
 * core spelling (PascalCase type) and its own times in ms.
 */
export function itemCompleted(threadId: string, turnId: string, item: UserMessageItem | AgentMessageItem, nowMs: number): string {
  const core =
    item.type === 'userMessage'
      ? { type: 'UserMessage', id: item.id, content: item.content.flatMap(coreUserInput) }
      : { type: 'AgentMessage', id: item.id, content: [{ type: 'Text', text: item.text }] };
  return event(nowMs, {
    type: 'item_completed',
    thread_id: threadId,
    turn_id: turnId,
    item: core,
    started_at_ms: item.startedAtMs ?? nowMs,
    completed_at_ms: item.completedAtMs ?? nowMs,
  });
}

// Core `TextElement` is snake_case; an item keeps an absent placeholder as null (probed).
function coreTextElement(el: TextElement, offset: number): Record<string, unknown> {
  return { byte_range: { start: el.byteRange.start + offset, end: el.byteRange.end + offset }, placeholder: el.placeholder };
}

// Core `UserInput` (snake_case tags), as `item_completed` stores a user message.
function coreUserInput(input: UserMessageItem['content'][number]): Record<string, unknown>[] {
  switch (input.type) {
    case 'text':
      return [{ type: 'text', text: input.text, text_elements: input.text_elements.map((el) => coreTextElement(el, 0)) }];
    case 'image':
      return [{ type: 'image', image_url: input.url, ...(input.detail == null ? {} : { detail: input.detail }) }];
    case 'localImage':
      return [{ type: 'local_image', path: input.path, ...(input.detail == null ? {} : { detail: input.detail }) }];
    case 'skill':
      return [{ type: 'skill', name: input.name, path: input.path }];
    case 'mention':
      return [{ type: 'mention', name: input.name, path: input.path }];
  }
}
