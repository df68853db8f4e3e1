// The records of a turn's messages, the user's and the model's, as the reference writes them:
// the `response_item` the model sees, with the legacy event history is rebuilt from, or the
// paginated `item_completed` that carries the item in core spelling. See rollout-lines.ts for
// what is left out on purpose.
import type { AgentMessageItem, TextElement, UserMessageItem } from '../../common/wire-types.js';
import { event, line } from './record-line.js';

/** A user message as the model is given it (turn/user-content.ts): its parts and their kinds. */
type ModelContent = { parts: unknown[]; kinds: string[] };

/**
 * The user's message: the `response_item` the model sees, then the legacy `user_message`
 * event that history is rebuilt from. The response item's id is `msg_<item id>`, the
 * reference's spelling; the reader strips the prefix to get the item id back.
 */
export function userMessage(item: UserMessageItem, nowMs: number, turnId?: string, modelContent?: ModelContent | null): string[] {
  const { message, textElements, images, localImages } = legacyUserFields(item);
  return [
    userResponseItem(item, nowMs, turnId, modelContent),
    event(nowMs, {
      type: 'user_message',
      ...(item.clientId === null ? {} : { client_id: item.clientId }),
      message,
      images,
      local_images: localImages,
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

// The legacy `user_message` event flattens the input: one text with shifted element ranges,
// and the images apart. Skills and mentions have no legacy representation; the reference
// drops them too.
function legacyUserFields(item: UserMessageItem) {
  let message = '';
  const textElements: unknown[] = [];
  const images: string[] = [];
  const localImages: string[] = [];
  for (const input of item.content) {
    if (input.type === 'text') {
      const prefix = message === '' ? '' : '\n';
      const offset = Buffer.byteLength(message + prefix, 'utf8');
      message += prefix + input.text;
      for (const el of input.text_elements) textElements.push(coreTextElement(el, offset));
    } else if (input.type === 'image') {
      images.push(input.url);
    } else if (input.type === 'localImage') {
      localImages.push(input.path);
    }
  }
  return { message, textElements, images, localImages };
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

// Core `TextElement` is snake_case and omits an absent placeholder (codex-rs/protocol user_input.rs).
function coreTextElement(el: TextElement, offset: number): Record<string, unknown> {
  return {
    byte_range: { start: el.byteRange.start + offset, end: el.byteRange.end + offset },
    ...(el.placeholder === null ? {} : { placeholder: el.placeholder }),
  };
}

// Core `UserInput` (snake_case tags), as `item_completed` stores a user message.
function coreUserInput(input: UserMessageItem['content'][number]): Record<string, unknown>[] {
  switch (input.type) {
    case 'text':
      return [{ type: 'text', text: input.text, text_elements: input.text_elements.map((el) => coreTextElement(el, 0)) }];
    case 'image':
      return [{ type: 'image', image_url: input.url, ...(input.detail == null ? {} : { detail: input.detail }) }];
    case 'localImage':
      return [{ type: 'local_image', path: input.path }];
    case 'skill':
      return [{ type: 'skill', name: input.name, path: input.path }];
    case 'mention':
      return [{ type: 'mention', name: input.name, path: input.path }];
  }
}
