// What a tool call gives back: the SDK's result as the reference carries it, or an error
// worded as the reference words it. Each text says where it comes from.
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** codex-rs/codex-mcp `call_tool_result_from_rmcp`: content, structured content, `_meta`, isError. */
export interface McpToolCallResult {
  content: unknown[];
  structuredContent: unknown;
  _meta: unknown;
  isError: boolean | null;
}

// A result's text past this is refused: it would be copied into every thread's transcript and
// the model's context, and the reference bounds responses too (rmcp-client's post-response
// body limit). 1 MiB of JSON text, counted in UTF-8 bytes.
export const MAX_RESULT_BYTES = 1024 * 1024;

/** Why a call failed, kept apart from the text so callers can branch without parsing it. */
export type McpCallFailure = 'serverError' | 'transportClosed' | 'timedOut' | 'cancelled' | 'tooLarge' | 'startupFailed';

/** A failed call; `message` is the reference's `{:#}` rendering: context, then the cause. */
export class McpCallError extends Error {
  constructor(
    readonly failure: McpCallFailure,
    message: string,
    /** The two halves of `message`, where it has them: what failed, and why. */
    readonly parts: { context: string; cause: string } | null = null,
  ) {
    super(message);
  }
}

/** Maps the SDK's result; throws `McpCallError('tooLarge')` past `MAX_RESULT_BYTES`. */
export function toolCallResult(server: string, tool: string, result: Record<string, unknown>): McpToolCallResult {
  const mapped: McpToolCallResult = {
    content: Array.isArray(result.content) ? result.content : [],
    structuredContent: result.structuredContent ?? null,
    _meta: result._meta ?? null,
    isError: typeof result.isError === 'boolean' ? result.isError : null,
  };
  const bytes = Buffer.byteLength(JSON.stringify(mapped));
  if (bytes > MAX_RESULT_BYTES) {
    // Ours; worded after rmcp-client's response limit ("… exceeds the 1024-byte limit").
    const cause = `result of ${bytes} bytes exceeds the ${MAX_RESULT_BYTES}-byte limit`;
    throw new McpCallError('tooLarge', `${callContext(server, tool)}: ${cause}`, { context: callContext(server, tool), cause });
  }
  return mapped;
}

/**
 * A failed request, `{context}: {cause}`. For a tool call the context is codex-rs/codex-mcp's
 * `.with_context(|| format!("tool call failed for `{}/{tool_name}`", …))`; the causes are
 * rmcp's `ServiceError` displays ("Mcp error: {code}: {message}", "Transport closed") and
 * rmcp-client's "timed out awaiting {label} after {duration:?}".
 */
export function requestFailure(context: string, failure: McpCallFailure, detail: string): McpCallError {
  return new McpCallError(failure, `${context}: ${detail}`, { context, cause: detail });
}

/** The cause of an SDK rejection, as the reference words it. */
export function describeSdkError(error: unknown, label: string, deadlineMs: number): { failure: McpCallFailure; detail: string } {
    if (error instanceof McpError) {
    if (error.code === (ErrorCode.ConnectionClosed as number)) return { failure: 'transportClosed', detail: 'Transport closed' };
    if (error.code === (ErrorCode.RequestTimeout as number)) return { failure: 'timedOut', detail: timedOut(label, deadlineMs) };
    // McpError's message is "MCP error {code}: {text}"; rmcp shows the wire error's own text.
    const text = error.message.replace(/^MCP error -?\d+: /, '');
    return { failure: 'serverError', detail: `Mcp error: ${error.code}: ${text}` };
  }
  return { failure: 'transportClosed', detail: error instanceof Error ? error.message : String(error) };
}

/**
 * rmcp-client `run_with_timeout`: "timed out awaiting {label} after …", the duration in whole
 * milliseconds as 0.171.0 prints it (`tool_timeout_sec = 1` shows "after 1000ms", probed).
 */
export function timedOut(label: string, ms: number): string {
  return `timed out awaiting ${label} after ${ms}ms`;
}

/** The context of a tool call's failure (see `requestFailure`). */
export function callContext(server: string, tool: string): string {
  return `tool call failed for \`${server}/${tool}\``;
}

