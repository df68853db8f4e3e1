// A model's tool call as the host is handed it and as the next request replays it, and the
// text of a user's input as the conversation keeps it.
import type { ToolCall } from '../../common/actor-messages.js';
import type { UserInput } from '../../common/wire-types.js';

/** The host's view of a model's tool call. */
export function toolCallOf(raw: Record<string, unknown>): ToolCall {
  const custom = raw.type === 'custom_tool_call';
  return {
    callId: raw.call_id as string,
    name: raw.name as string,
    namespace: typeof raw.namespace === 'string' ? raw.namespace : null,
    kind: custom ? 'custom' : 'function',
    input: (custom ? raw.input : raw.arguments) as string,
  };
}

/** A tool call as the next request replays it: the reference's key order, the model's id kept. */
export function modelCallItem(raw: Record<string, unknown>): Record<string, unknown> {
  const namespace = typeof raw.namespace === 'string' ? { namespace: raw.namespace } : {};
  if (raw.type === 'custom_tool_call') return { type: 'custom_tool_call', id: raw.id, call_id: raw.call_id, name: raw.name, input: raw.input };
  return { type: 'function_call', id: raw.id, name: raw.name, ...namespace, arguments: raw.arguments, call_id: raw.call_id };
}

/** The text parts of an input, as the model's conversation keeps them. */
export function textOf(input: readonly UserInput[]): string {
  return input.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
