// Connects a transport to the host: each connection the transport opens gets an entry in the
// connection table and the router for its input; when it closes, its subscriptions are
// dropped (feeding the idle-unload rule exactly like explicit unsubscribes). A connection's
// input is applied in order: after a large line (parsed off the main thread), its later
// input, close included, waits for that line's outcome.
import type { Connection } from '../connections.js';
import { dropConnection } from '../handlers/thread-unsubscribe.js';
import type { HostContext } from '../host-context.js';
import { ConnectionInput } from '../input/connection-input.js';
import type { LargeLineParser } from '../input/large-line-parser.js';
import type { Router } from '../router.js';
import type { CloseReason, Transport } from '../transport/transport.js';
import { warmUpHost } from './warm-up.js';

// How long after the first request the host warms up (warm-up.ts: the pool's packages and
// workers, crypto for thread ids), so a client that only initializes and goes (a health probe,
// the bench's cold start) is gone before they load, and its exit does not wait for workers it
// never used. A thread/start starts the pool at once anyway.
const WARM_UP_AFTER_FIRST_REQUEST_MS = 50;

export interface ServeOptions {
  /** After a connection closed and its subscriptions were dropped. */
  onClosed(connection: Connection, reason: CloseReason): void;
}

export function serveConnections(ctx: HostContext, router: Router, lines: LargeLineParser, transport: Transport, options: ServeOptions): void {
  let poolWarm = false;
  transport.listen((sink) => {
    const connection = ctx.connections.open((line) => sink.send(line), { fleetPeer: sink.fleetPeer === true });
    const input = new ConnectionInput(ctx.log);
    return {
      message: (text) => {
        input.push(() => router.handleLine(connection, text));
        // Workers start once the first reply is out, so a cold start answers `initialize`
        // without paying for them; `ready()` starts them anyway if needed first.
        if (!poolWarm) {
          poolWarm = true;
          setTimeout(() => warmUpHost(ctx), WARM_UP_AFTER_FIRST_REQUEST_MS).unref();
        }
      },
      // The parse starts at once (lines of several connections queue at the one worker);
      // only applying its outcome waits for this connection's earlier input.
      largeMessage: (line) => input.pushAfter(lines.parse(line.segments), (outcome) => router.handleLargeLine(connection, outcome)),
      dropped: (event) => input.push(() => router.handleDroppedLine(connection, event)),
      closed: (reason) =>
        input.push(() => {
          dropConnection(ctx, connection);
          router.closed(connection);
          options.onClosed(connection, reason);
        }),
    };
  });
}
