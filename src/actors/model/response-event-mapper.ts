// Maps Responses API stream events (keyed on their JSON `type`) to the ModelEvents a turn uses.
import type { ModelUsage } from '../../common/wire-types.js';
import { responseFailed, streamDisconnected, type ModelEvent } from './model-client.js';

/** Maps Responses API events (keyed on their JSON `type`) to ModelEvents. */
export class ResponseEventMapper {
  /** Returns the event to yield, null to skip, or throws for `response.failed`/`incomplete`. */
  accept(data: string): ModelEvent | null {
    if (data.length === 0) return null; // an `event:`-only block
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return null; // the reference skips events it cannot parse
    }
    if (!isRecord(event)) return null;
    switch (event.type) {
      case 'response.output_item.added': {
        const item = assistantMessage(event.item);
        return item === null ? null : { type: 'messageStarted', itemId: itemId(item, event) };
      }
      case 'response.output_text.delta':
        if (typeof event.delta !== 'string') return null;
        return { type: 'textDelta', itemId: typeof event.item_id === 'string' ? event.item_id : null, delta: event.delta };
      case 'response.output_item.done': {
        if (isToolCall(event.item)) return { type: 'toolCall', item: event.item };
        const item = assistantMessage(event.item);
        return item === null ? null : { type: 'messageDone', itemId: itemId(item, event), text: outputText(item) };
      }
      case 'response.completed': {
        if (!isRecord(event.response)) return null;
        const id = event.response.id;
        return { type: 'completed', responseId: typeof id === 'string' ? id : null, usage: toUsage(event.response.usage) };
      }
      case 'response.failed': {
        const error = isRecord(event.response) && isRecord(event.response.error) ? event.response.error : null;
        throw responseFailed(error);
      }
      case 'response.incomplete': {
        const details = isRecord(event.response) ? event.response.incomplete_details : null;
        const reason = isRecord(details) && typeof details.reason === 'string' ? details.reason : 'unknown';
        throw streamDisconnected(`Incomplete response returned, reason: ${reason}`);
      }
      default:
        return null;
    }
  }
}

/** A call the model makes: a function tool's (`arguments` JSON text) or a freeform one's (`input`). */
function isToolCall(item: unknown): item is Record<string, unknown> {
  if (!isRecord(item) || typeof item.call_id !== 'string' || typeof item.name !== 'string') return false;
  return (item.type === 'function_call' && typeof item.arguments === 'string') || (item.type === 'custom_tool_call' && typeof item.input === 'string');
}

function assistantMessage(item: unknown): Record<string, unknown> | null {
  return isRecord(item) && item.type === 'message' && item.role === 'assistant' ? item : null;
}

/** The item's id; a provider that omits it gets a stable stand-in from the output index. */
function itemId(item: Record<string, unknown>, event: Record<string, unknown>): string {
  if (typeof item.id === 'string') return item.id;
  return `msg-${typeof event.output_index === 'number' ? event.output_index : 0}`;
}

function outputText(item: Record<string, unknown>): string {
  if (!Array.isArray(item.content)) return '';
  let text = '';
  for (const part of item.content) {
    if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

function toUsage(usage: unknown): ModelUsage {
  const u = isRecord(usage) ? usage : {};
  const inputDetails = isRecord(u.input_tokens_details) ? u.input_tokens_details : {};
  const outputDetails = isRecord(u.output_tokens_details) ? u.output_tokens_details : {};
  return {
    inputTokens: count(u.input_tokens),
    cachedInputTokens: count(inputDetails.cached_tokens),
    outputTokens: count(u.output_tokens),
    reasoningOutputTokens: count(outputDetails.reasoning_tokens),
    totalTokens: count(u.total_tokens),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
