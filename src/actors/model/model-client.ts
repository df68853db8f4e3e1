// What a thread needs from a model: one streamed sampling per turn, and the errors that can end
// it. The error texts are the ones the reference (codex 0.171.0) shows the client, because
// clients and tests match on them.

import { STATUS_CODES } from 'node:http';
import type { ConversationMessage, ModelUsage } from '../../common/wire-types.js';

/** One sampling request: the whole conversation so far plus the new user message. */
export interface ModelRequest {
  model: string;
  baseInstructions: string | null;
  developerInstructions: string | null;
  /** The conversation before the last user message. */
  history: ConversationMessage[];
  /** The last user message: what the request answers. */
  userText: string;
  /** Its content parts when it carries more than text (images); absent for text alone. */
  userParts?: unknown[];
  /** What followed it in this turn: the model's tool calls and their outputs. */
  followUps?: ConversationMessage[];
  /** The tools offered, as the Responses API's `tools` array; absent or empty for none. */
  tools?: readonly unknown[];
  effort: string | null;
  outputSchema: unknown | null;
  threadId: string;
  turnId: string;
  signal: AbortSignal;
  /** Called before each retry; `attempt` counts from 1. */
  onRetry?: (attempt: number, maxRetries: number, reason: string) => void;
}

/** What a sampling streams back, in order, ending with exactly one `completed`. */
export type ModelEvent =
  /** `response.output_item.added` of an assistant message. */
  | { type: 'messageStarted'; itemId: string }
  /** `response.output_text.delta`; `itemId` is the event's `item_id` when it has one. */
  | { type: 'textDelta'; itemId: string | null; delta: string }
  /** `response.output_item.done` of an assistant message; `text` joins its output_text parts. */
  | { type: 'messageDone'; itemId: string; text: string }
  /**
   * `response.output_item.done` of a `function_call` or `custom_tool_call`: the item as the
   * model sent it (it goes back in the next request's input, and in the history, as it is).
   */
  | { type: 'toolCall'; item: Record<string, unknown> }
  | { type: 'completed'; responseId: string | null; usage: ModelUsage };

/** A model backend. The iterable throws {@link ModelStreamError} or {@link ModelAbortedError}. */
export interface ModelClient {
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

/** Which reference error a {@link ModelStreamError} stands for. */
export type ModelErrorKind =
  | 'streamDisconnected' // CodexErr::Stream: closed early, idle, response.failed, transport
  | 'unexpectedStatus' // CodexErr::UnexpectedStatus
  | 'invalidRequest' // CodexErr::InvalidRequest (HTTP 400)
  | 'internalServerError' // CodexErr::InternalServerError (HTTP 500)
  | 'serverOverloaded' // CodexErr::ServerOverloaded (HTTP 503 server_is_overloaded)
  | 'retryLimit' // CodexErr::RetryLimit (HTTP 429)
  | 'requestTimeout' // CodexErr::RequestTimeout
  | 'contextWindowExceeded' // CodexErr::ContextWindowExceeded
  | 'quotaExceeded'; // CodexErr::QuotaExceeded

/** A sampling failed; `message` is the exact text the reference shows the client. */
export class ModelStreamError extends Error {
  readonly kind: ModelErrorKind;
  /** The HTTP status behind the failure, when there was one. */
  readonly httpStatus: number | null;

  constructor(kind: ModelErrorKind, message: string, httpStatus: number | null = null) {
    super(message);
    this.name = 'ModelStreamError';
    this.kind = kind;
    this.httpStatus = httpStatus;
  }
}

/** The request's AbortSignal fired; distinct so a turn can report `interrupted`, not `failed`. */
export class ModelAbortedError extends Error {
  constructor() {
    super('model request aborted');
    this.name = 'ModelAbortedError';
  }
}

// ---------------------------------------------------------------------------------------------
// Reference texts. Sources, in openai/codex:
//   codex-rs/protocol/src/error.rs      CodexErr #[error(...)] strings, UnexpectedResponseError,
//                                       RetryLimitReachedError Display
//   codex-rs/codex-api/src/api_bridge.rs map_api_error: which HTTP status becomes which error
//   codex-rs/codex-api/src/sse/responses.rs process_sse: the stream-level reasons
// ---------------------------------------------------------------------------------------------

/** CodexErr::Stream: `stream disconnected before completion: {0}`. */
export function streamDisconnected(reason: string): ModelStreamError {
  return new ModelStreamError('streamDisconnected', `stream disconnected before completion: ${reason}`);
}

/** process_sse: the body ended without `response.completed`. */
export const STREAM_CLOSED_BEFORE_COMPLETED = 'stream closed before response.completed';
/** process_sse: no event within `stream_idle_timeout_ms`. */
export const IDLE_TIMEOUT_WAITING_FOR_SSE = 'idle timeout waiting for SSE';

/** CodexErr::RequestTimeout (no response headers before the deadline). */
export function requestTimedOut(): ModelStreamError {
  return new ModelStreamError('requestTimeout', 'request timed out');
}

/**
 * A connection that failed before any response. The reference passes reqwest's error text
 * through CodexErr::Stream; reqwest renders a send failure as `error sending request for url (…)`.
 */
export function connectionFailed(url: string): ModelStreamError {
  return streamDisconnected(`error sending request for url (${url})`);
}

/** A `response.failed` event, classified as process_sse does. */
export function responseFailed(error: { code?: unknown; message?: unknown } | null): ModelStreamError {
  if (error === null) return streamDisconnected('response.failed event received');
  if (error.code === 'context_length_exceeded') {
    return new ModelStreamError(
      'contextWindowExceeded',
      "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
    );
  }
  if (error.code === 'insufficient_quota') {
    return new ModelStreamError('quotaExceeded', 'Quota exceeded. Check your plan and billing details.');
  }
  return streamDisconnected(typeof error.message === 'string' ? error.message : '');
}

/** Everything map_api_error reads from a non-2xx response. */
export interface HttpFailure {
  status: number;
  body: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

// UNEXPECTED_RESPONSE_BODY_MAX_BYTES in error.rs: longer bodies are cut and get "...".
const UNEXPECTED_RESPONSE_BODY_MAX_BYTES = 1000;

/** map_api_error for `TransportError::Http`: the client-visible error for a non-2xx status. */
export function httpStatusError(failure: HttpFailure): ModelStreamError {
  const { status, body } = failure;
  const errorObject = parseErrorObject(body);
  if (status === 503 && (errorObject?.code === 'server_is_overloaded' || errorObject?.code === 'slow_down')) {
    return new ModelStreamError('serverOverloaded', 'Selected model is at capacity. Please try a different model.', status);
  }
  if (status === 400) return new ModelStreamError('invalidRequest', body, status);
  if (status === 500) {
    return new ModelStreamError(
      'internalServerError',
      'We’re currently experiencing high demand, which may cause temporary errors.',
      status,
    );
  }
  const requestId = header(failure.headers, 'x-request-id') ?? header(failure.headers, 'x-oai-request-id');
  const cfRay = header(failure.headers, 'cf-ray');
  if (status === 429) {
    // RetryLimitReachedError; usage-limit bodies (ChatGPT plans) do not apply to API providers.
    const trackingId = requestId ?? cfRay;
    const suffix = trackingId === undefined ? '' : `, request id: ${trackingId}`;
    return new ModelStreamError('retryLimit', `exceeded retry limit, last status: ${statusText(status)}${suffix}`, status);
  }
  // UnexpectedResponseError Display: status, error.message or the trimmed body, then the url,
  // cf-ray and request id when known.
  let message = `unexpected status ${statusText(status)}: ${displayBody(body, errorObject)}, url: ${failure.url}`;
  if (cfRay !== undefined) message += `, cf-ray: ${cfRay}`;
  if (requestId !== undefined) message += `, request id: ${requestId}`;
  return new ModelStreamError('unexpectedStatus', message, status);
}

/** http::StatusCode's Display: `503 Service Unavailable`. */
function statusText(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? '<unknown status code>'}`;
}

function displayBody(body: string, errorObject: { message?: unknown } | null): string {
  const message = typeof errorObject?.message === 'string' ? errorObject.message.trim() : '';
  if (message.length > 0) return message;
  const trimmed = body.trim();
  if (trimmed.length === 0) return 'Unknown error';
  const bytes = Buffer.from(trimmed, 'utf8');
  if (bytes.length <= UNEXPECTED_RESPONSE_BODY_MAX_BYTES) return trimmed;
  let cut = UNEXPECTED_RESPONSE_BODY_MAX_BYTES;
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--; // back off to a char boundary
  return `${bytes.subarray(0, cut).toString('utf8')}...`;
}

function parseErrorObject(body: string): { code?: unknown; message?: unknown } | null {
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null) return null;
    const error = (parsed as { error?: unknown }).error;
    return typeof error === 'object' && error !== null ? error : null;
  } catch {
    return null;
  }
}

function header(headers: HttpFailure['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
