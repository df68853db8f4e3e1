// The one error catalogue of the wire. Handlers throw `RpcError`; the router is the only
// place that turns a throw into a JSON-RPC error reply. Codes and texts follow codex
// app-server 0.171.0 (`codex-rs/app-server/src/error_code.rs`), which answers almost every
// failure of this subset with -32600.

/** JSON-RPC error codes the server sends. */
export const ErrorCode = {
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Overloaded: -32001,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Why a request was refused, for the host's own decisions (which requests a fleet forwards):
 * never on the wire, where the reference's text is all a client sees, and never found by
 * comparing that text.
 */
export type RefusalReason = 'threadNotFound' | 'threadNotLoaded';

/** An error that reaches the client as `{"error":{code,message,data?}}`. */
export class RpcError extends Error {
  constructor(
    readonly code: ErrorCodeValue,
    message: string,
    readonly data?: unknown,
    readonly reason?: RefusalReason,
  ) {
    super(message);
    this.name = 'RpcError';
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const invalidRequest = (message: string): RpcError => new RpcError(ErrorCode.InvalidRequest, message);
export const internalError = (message: string): RpcError => new RpcError(ErrorCode.InternalError, message);
export const invalidParams = (message: string): RpcError => new RpcError(ErrorCode.InvalidParams, message);
/** An operation the reference's thread store does not offer for this history (e.g. items of a legacy thread). */
export const notSupportedYet = (operation: string): RpcError => new RpcError(ErrorCode.MethodNotFound, `${operation} is not supported yet`);
export const invalidCursor = (detail: string): RpcError => invalidRequest(`invalid cursor: ${detail}`);

/** A params or envelope deserialization failure, worded as serde would. */
export const deserializeError = (detail: string): RpcError => invalidRequest(`Invalid request: ${detail}`);

export const notInitialized = (): RpcError => invalidRequest('Not initialized');
export const alreadyInitialized = (): RpcError => invalidRequest('Already initialized');
export const overloaded = (): RpcError => new RpcError(ErrorCode.Overloaded, 'Server overloaded; retry later.');
export const threadNotLoaded = (id: string): RpcError => new RpcError(ErrorCode.InvalidRequest, `thread not loaded: ${id}`, undefined, 'threadNotLoaded');
export const threadNotFound = (id: string): RpcError => new RpcError(ErrorCode.InvalidRequest, `thread not found: ${id}`, undefined, 'threadNotFound');
export const noRolloutFound = (id: string): RpcError => invalidRequest(`no rollout found for thread id ${id}`);
export const threadArchived = (id: string): RpcError =>
  invalidRequest(`session ${id} is archived. Run \`codex unarchive ${id}\` to unarchive it first.`);
export const activeWriter = (id: string): RpcError => invalidRequest(`thread ${id} already has an active writer`);
export const threadClosing = (id: string): RpcError =>
  invalidRequest(`thread ${id} is closing; retry thread/resume after the thread is closed`);
/** A new load refused so that the threads already loaded keep the descriptors their turns need. */
export const hostFull = (loaded: number, remedy: string): RpcError =>
  new RpcError(ErrorCode.Overloaded, `host is full: ${loaded} threads are loaded, the most it admits; ${remedy}`, { reason: 'hostFull' });
export const serverDraining = (): RpcError =>
  new RpcError(ErrorCode.InvalidRequest, 'server is shutting down', { reason: 'draining' });

/** The reference's text when the coordination lock stays held past the acquire deadline. */
export const COORDINATION_TIMEOUT_TEXT =
  'thread-store internal error: timed out waiting for the thread writer coordination lock; ' +
  'another Codex process may be suspended on this or another host';
export const coordinationTimeout = (operation: 'start' | 'resume', cause?: string): RpcError =>
  internalError(
    `${operation === 'start' ? 'error creating thread' : 'error resuming thread'}: ` +
      `Fatal error: Failed to initialize session: ${COORDINATION_TIMEOUT_TEXT}${cause === undefined ? '' : ` (${cause})`}`,
  );

/** Wraps an unexpected failure the way the reference reports internal errors. */
export function asRpcError(error: unknown, method: string): RpcError {
  if (error instanceof RpcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return internalError(`${method} failed with message: ${message}`);
}

// A fork (or revert) the reference refuses is found out where the source is read, in the
// thread's actor; the refusal crosses to the host as an Error whose name says so (comlink
// carries an error's name and message), and its message is the client's (forkRefusalOf).
const FORK_REFUSAL = 'ForkRefusal';
export const forkRefused = (message: string): Error => Object.assign(new Error(message), { name: FORK_REFUSAL });
/** The client's error for a refusal raised by `forkRefused`; null for any other failure. */
export function forkRefusalOf(error: unknown): RpcError | null {
  return error instanceof Error && error.name === FORK_REFUSAL ? invalidRequest(error.message) : null;
}
