// The floor of a WebSocket request round trip: this Node, spawned the way a server is, listening
// on a loopback port with the `ws` package the host uses, answering each message that has an id
// with a `thread/loaded/list` page of the size asked (`limit` ids, 36 characters each, built
// once per size), and `GET /readyz` with 200 so WsEndpoint starts it like a server. It does
// nothing else: probed beside a server under load, what it adds is the machine's own share
// (two processes waking each other through a socket on busy cores), and what the server adds
// above it is its own work.
//
// Run as `node bare-ws-echo.js --port <n>`; this module also exports the command.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';
import type { ServerCommand } from './server-command.js';
import { createHome, removeHome } from './server-home.js';
import { PORT_PLACEHOLDER, WsEndpoint } from './ws-endpoint.js';

const SCRIPT = fileURLToPath(import.meta.url);

/** A bare Node WebSocket echo as a server command (`{port}` is substituted by WsEndpoint). */
export const BARE_WS_ECHO_COMMAND: ServerCommand = { name: 'bare node ws echo', argv: [process.execPath, SCRIPT, '--port', PORT_PLACEHOLDER], env: {} };

/** Runs `body` against a bare WebSocket echo started in a home of its own, stopped and removed after. */
export async function withBareWsEcho<T>(body: (echo: WsEndpoint) => Promise<T>): Promise<T> {
  const home = createHome(null);
  try {
    const echo = await WsEndpoint.start(BARE_WS_ECHO_COMMAND, home);
    try {
      return await body(echo);
    } finally {
      await echo.stop();
    }
  } finally {
    removeHome(home);
  }
}

const pages = new Map<number, string>();

/** The reply text after the id: a page of `size` thread ids, as a loaded list of that many. */
function pageOf(size: number): string {
  let page = pages.get(size);
  if (page === undefined) {
    const ids = Array.from({ length: size }, (_, i) => `00000000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`);
    page = `,"result":{"data":${JSON.stringify(ids)},"nextCursor":null}}`;
    pages.set(size, page);
  }
  return page;
}

function serve(port: number): void {
  const http = createServer((request, response) => {
    response.writeHead(request.url === '/readyz' ? 200 : 404).end();
  });
  const sockets = new WebSocketServer({ server: http });
  sockets.on('connection', (socket) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: unknown; params?: { limit?: unknown } };
      if (message.id === undefined) return;
      const limit = message.params?.limit;
      socket.send(`{"id":${JSON.stringify(message.id)}${pageOf(typeof limit === 'number' ? limit : 0)}`);
    });
  });
  http.listen(port, '127.0.0.1');
  process.on('SIGTERM', () => {
    for (const socket of sockets.clients) socket.terminate();
    http.close(() => process.exit(0));
  });
}

if (process.argv[1] === SCRIPT) {
  const at = process.argv.indexOf('--port');
  const port = Number(process.argv[at + 1]);
  if (at < 0 || !Number.isInteger(port)) {
    process.stderr.write('usage: bare-ws-echo.js --port <n>\n');
    process.exit(2);
  }
  serve(port);
}
