// The JSON-RPC shapes a client of the app server handles, and the one error a request rejects
// with when the server answers with an error object (a protocol refusal, not a transport failure).

// Wire JSON is read field by field by callers; typing each method would be one wrapper per method.
export type Message = Record<string, any>;

/** An error reply (`{ id, error: { code, message, data } }`), thrown by `RpcConnection.request`. */
export class RpcReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The reference's "Server overloaded; retry later." (inbound queue full, or the host full): retryable. */
export const OVERLOADED = -32001;

/** JSON-RPC's "method not found": what a client answers to a server request it does not serve. */
export const METHOD_NOT_FOUND = -32601;

/** A reply: has an id and no method. */
export function isReply(message: Message): boolean {
  return !('method' in message);
}

/** A request from the server to the client (an approval, say): a method and an id. */
export function isServerRequest(message: Message): boolean {
  return 'method' in message && 'id' in message;
}
