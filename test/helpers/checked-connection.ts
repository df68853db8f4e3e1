// The test side of a JSON-RPC connection to the server under test (src/client's
// RpcConnection), whatever carries it: every message the server sends is kept in order and
// validated against the official schema, replies against the method of the request they answer.
import { RpcConnection } from '../../src/client/rpc-connection.js';
import type { MessageTransport } from '../../src/client/message-transport.js';
import type { Message } from '../../src/client/rpc-messages.js';
import { SchemaValidator } from './schema-validator.js';

export { DEFAULT_DEADLINE_MS as DEFAULT_TIMEOUT_MS } from '../../src/client/rpc-connection.js';
export { RpcReplyError, type Message } from '../../src/client/rpc-messages.js';

export const TEST_CLIENT_INFO = { name: 'codex-app-server-tests', title: null, version: '0.1.0' };

const validator = new SchemaValidator();

export class CheckedConnection extends RpcConnection {
  readonly received: Message[] = [];
  readonly schemaProblems: string[] = [];
  /** The method of each request sent, hand-written ones included, until its reply arrives. */
  readonly #requestMethods = new Map<string | number, string>();

  constructor(transport: MessageTransport, diagnostics: () => string) {
    super(transport, { diagnostics });
    this.trace = (direction, text) => {
      if (direction === '->') this.#sent(text);
    };
    this.onMessage = (message) => this.#check(message);
    this.onUnparsed = (text) => this.schemaProblems.push(`not JSON: ${text.slice(0, 200)}`);
  }

  /** `initialize` then `initialized`, as a client of the reference starts. */
  override initialize(clientInfo: Message = TEST_CLIENT_INFO): Promise<Message> {
    return super.initialize({ clientInfo, capabilities: { experimentalApi: true } });
  }

  /** Everything received so far whose method matches, in order (kept or consumed). */
  notifications(method?: string): Message[] {
    return this.received.filter((m) => 'method' in m && (method === undefined || m.method === method));
  }

  #sent(text: string): void {
    try {
      const parsed = JSON.parse(text) as Message;
      if (parsed && typeof parsed.method === 'string' && (typeof parsed.id === 'string' || Number.isInteger(parsed.id))) {
        this.#requestMethods.set(parsed.id, parsed.method);
      }
    } catch {
      // Not JSON: sent on purpose by a test of malformed input.
    }
  }

  #check(message: Message): void {
    this.received.push(message);
    const requestMethod = 'method' in message ? undefined : this.#requestMethods.get(message.id);
    if (!('method' in message)) this.#requestMethods.delete(message.id);
    for (const problem of validator.check(message, requestMethod)) this.schemaProblems.push(problem);
  }
}
