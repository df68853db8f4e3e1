// The floor a request round trip is measured against: this Node, spawned the way a server is,
// answering each JSON line that has an id with a fixed small result (an empty loaded list) and
// doing nothing else. What a server adds above it is its own work; what is left is the
// machine's (two processes waking each other through a pipe).
import type { ServerCommand } from './server-command.js';

const ECHO_SCRIPT = `
const REPLY = ',"result":{"data":[],"nextCursor":null,"userAgent":"bare-node-echo"}}\\n';
let pending = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf('\\n')) >= 0) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.id !== undefined) process.stdout.write('{"id":' + JSON.stringify(message.id) + REPLY);
  }
});
`;

/** A bare Node line echo as a server command (it answers `initialize` too, so the bench client starts it). */
export const BARE_ECHO_COMMAND: ServerCommand = { name: 'bare node echo', argv: [process.execPath, '-e', ECHO_SCRIPT], env: {} };
