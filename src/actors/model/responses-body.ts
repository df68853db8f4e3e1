// The Responses API request body for one sampling: the whole conversation as input items.
import type { ConversationMessage } from '../../common/wire-types.js';
import type { ModelRequest } from './model-client.js';

/** The request body: the whole conversation as input items, and the tools offered. */
export function buildResponsesBody(request: ModelRequest): Record<string, unknown> {
  const input: unknown[] = [];
  if (request.baseInstructions !== null) input.push(inputMessage('developer', request.baseInstructions));
  if (request.developerInstructions !== null) input.push(inputMessage('developer', request.developerInstructions));
  for (const message of request.history) input.push(inputItem(message));
  input.push(request.userParts === undefined ? inputMessage('user', request.userText) : { type: 'message', role: 'user', content: sentParts(request.userParts) });
  for (const message of request.followUps ?? []) input.push(inputItem(message));
  const tools = request.tools ?? [];
  // Key order follows the reference's ResponsesApiRequest, which helps when diffing captures.
  const body: Record<string, unknown> = {
    model: request.model, input, tools, tool_choice: 'auto', parallel_tool_calls: tools.length > 0,
  };
  // The reference always asks for reasoning: the effort when one is set, and the summary
  // (its default "auto" for a model it has no metadata for), with the encrypted content back.
  body.reasoning = request.effort !== null ? { effort: request.effort, summary: 'auto' } : { summary: 'auto' };
  body.store = false;
  body.include = ['reasoning.encrypted_content'];
  body.stream = true;
  if (request.outputSchema !== null && request.outputSchema !== undefined) {
    // create_text_param_for_request in the reference: this name, strict by default.
    body.text = { format: { type: 'json_schema', strict: true, schema: request.outputSchema, name: 'codex_output_schema' } };
  }
  return body;
}

function inputItem(message: ConversationMessage): unknown {
  if (message.role === 'item') return message.item;
  if (message.parts !== undefined) return { type: 'message', role: message.role, content: sentParts(message.parts) };
  return inputMessage(message.role, message.text);
}

function inputMessage(role: 'user' | 'assistant' | 'developer', text: string): unknown {
  return { type: 'message', role, content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }] };
}

// An image the history keeps at detail "original" is sent at "high": the reference tells a
// model it has no metadata for so (probed), the first time and whenever the message is replayed.
function sentParts(parts: unknown[]): unknown[] {
  return parts.map((part) => {
    const image = part as { type?: unknown; detail?: unknown } | null;
    return image?.type === 'input_image' && image.detail === 'original' ? { ...image, detail: 'high' } : part;
  });
}
