// The floor a request round trip is measured against: this Node, spawned the way a server is,
// answering each JSON line that has an id with a fixed small result (an empty loaded list) and
// doing nothing else. What a server adds above it is its own work; what is left is the
// machine's (two processes waking each other through a pipe).
//
// A `thread/unsubscribe` is answered as a server that unloads the thread at once would, with
// nothing of its work: the reply, then in the next iteration of the event loop (a second write, as
// a server announcing after its reply makes) `thread/status/changed` and `thread/closed` for
// the id it named. That is the floor of unsubscribe → closed.
//
// A request whose params carry `floorIds: n` is answered with a list of n thread ids (36
// characters each, as a `thread/loaded/list` of n loaded threads), built once per n: the floor
// of moving a reply that large between two processes.
import { AppServerClient } from './app-server-client.js';
import type { ServerCommand } from './server-command.js';
import { createHome, removeHome } from './server-home.js';

const ECHO_SCRIPT = `
const REPLY = ',"result":{"data":[],"nextCursor":null,"userAgent":"bare-node-echo"}}\\n';
const SIZED = new Map();
const sizedReply = (n) => {
  if (!SIZED.has(n)) {
    const ids = Array.from({ length: n }, (_, i) => '00000000-0000-7000-8000-' + i.toString(16).padStart(12, '0'));
    SIZED.set(n, ',"result":{"data":' + JSON.stringify(ids) + ',"nextCursor":null}}\\n');
  }
  return SIZED.get(n);
};
let pending = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\\n')) >= 0) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.id === undefined) continue;
    if (message.method !== 'thread/unsubscribe') {
      const sized = typeof message.params?.floorIds === 'number' ? sizedReply(message.params.floorIds) : REPLY;
      process.stdout.write('{"id":' + JSON.stringify(message.id) + sized);
      continue;
    }
    const threadId = JSON.stringify(message.params.threadId);
    process.stdout.write('{"id":' + JSON.stringify(message.id) + ',"result":{"status":"unsubscribed"}}\\n');
    setImmediate(() => process.stdout.write(
      '{"method":"thread/status/changed","params":{"threadId":' + threadId + ',"status":{"type":"notLoaded"}}}\\n' +
      '{"method":"thread/closed","params":{"threadId":' + threadId + '}}\\n'));
  }
});
`;

/** A bare Node line echo as a server command (it answers `initialize` too, so the bench client starts it). */
export const BARE_ECHO_COMMAND: ServerCommand = { name: 'bare node echo', argv: [process.execPath, '-e', ECHO_SCRIPT], env: {} };

/** Runs `body` against a bare Node echo started in a home of its own, closed and removed after. */
export async function withBareEcho<T>(body: (echo: AppServerClient) => Promise<T>): Promise<T> {
  const home = createHome(null);
  try {
    const echo = await AppServerClient.start(BARE_ECHO_COMMAND, home);
    try {
      return await body(echo);
    } finally {
      await echo.close();
    }
  } finally {
    removeHome(home);
  }
}
