// What carries JSON-RPC texts between a client and the app server, split as vscode-jsonrpc
// splits it: a reader that hands over each received message text (one stdio line, one
// WebSocket text frame) and says once when the peer is gone, and a writer that sends texts.
// The connection (rpc-connection.ts) knows nothing of pipes or sockets; whoever opened the
// transport closes it.

export interface MessageReader {
  /**
   * Starts delivery: `onText` for every message in arrival order, then `onClose` once with why
   * the peer is gone (exited, connection closed) after the last message was delivered.
   */
  listen(onText: (text: string) => void, onClose: (why: string) => void): void;
}

export interface MessageWriter {
  /** Sends one message text (framing added by the transport). */
  write(text: string): void;
  /**
   * Frames a text ahead of time, so that a huge message's encoding is not counted in the time
   * between its send and its reply (bench huge-line case); `writeEncoded` sends it.
   */
  encode(text: string): Buffer;
  writeEncoded(frame: Buffer): void;
}

export interface MessageTransport {
  readonly reader: MessageReader;
  readonly writer: MessageWriter;
  /** Ends the connection gracefully, forces it after `graceMs`, and resolves once it is gone. */
  close(graceMs: number): Promise<void>;
}
