// One bench client on a WebSocket server (bench-connection.ts over the client library's
// WebSocket transport), with every notification also handed to `onNotification` with its
// arrival time in `Date.now()` ms, the clock the servers stamp `emittedAtMs` with (same machine).
import { RpcConnection } from '../../src/client/rpc-connection.js';
import { WebSocketTransport } from '../../src/client/websocket-transport.js';
import { BenchConnection, DEFAULT_DEADLINE_MS, INITIALIZE_PARAMS, type Json } from './bench-connection.js';

export class WsBenchClient extends BenchConnection {
  /** Called for every notification, in arrival order, with the server's `emittedAtMs` (NaN if absent). */
  onNotification: (method: string, params: Json, arrivedAtMs: number, emittedAtMs: number) => void = () => undefined;

  private constructor(private readonly transport: WebSocketTransport) {
    // Waits for notifications not yet arrived; nothing unclaimed is kept.
    super(new RpcConnection(transport, { keepUnclaimed: false }), { keepUnclaimed: false });
    // The wall clock is read as the text arrives, before it is parsed, as the server stamps it before writing.
    let arrivedAtMs = 0;
    this.rpc.trace = (direction) => {
      if (direction === '<-') arrivedAtMs = Date.now();
    };
    const file = this.rpc.onMessage;
    this.rpc.onMessage = (message, at) => {
      file(message, at);
      if ('method' in message && !('id' in message)) {
        this.onNotification(String(message.method), (message.params ?? {}) as Json, arrivedAtMs, Number(message.emittedAtMs ?? Number.NaN));
      }
    };
  }

  /** Connects and initializes. */
  static async connect(url: string): Promise<WsBenchClient> {
    const client = new WsBenchClient(await WebSocketTransport.open(url));
    await client.rpc.initialize(INITIALIZE_PARAMS, DEFAULT_DEADLINE_MS);
    return client;
  }

  /** Drops the connection at once. */
  close(): void {
    void this.transport.close(0);
  }
}
