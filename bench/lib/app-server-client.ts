// A bench client for any app-server command over stdio: spawns it in a home (CODEX_HOME=home,
// cwd=home, as the reference harness does, protocol.md §8.1), sends `initialize` at once and
// requires the first message back to be its response. The JSON-RPC itself is the client
// library's (src/client); the keyed notification waits are bench-connection.ts's. Every wait
// fails at once when the server exits, with the last of its stderr.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { ChildStdioTransport } from '../../src/client/child-stdio-transport.js';
import { RpcConnection } from '../../src/client/rpc-connection.js';
import type { Message } from '../../src/client/rpc-messages.js';
import { BenchConnection, INITIALIZE_PARAMS } from './bench-connection.js';
import { trackChild } from './children.js';
import type { ServerCommand } from './server-command.js';

export { INITIALIZE_PARAMS, OVERLOADED, RpcReplyError, type Arrival, type Json } from './bench-connection.js';

const INITIALIZE_DEADLINE_MS = 30_000;
const STDERR_TAIL_CHARS = 4_000;
const CLOSE_GRACE_MS = 3_000;

/** Routes outbound traffic to loopback only: the reference must not try the network at start. */
const LOOPBACK_ENV = { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,localhost' };

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** Spawns a server process (`argv`, which may differ from `command.argv` by a substituted port) in `home`. */
export function spawnServer(argv: readonly string[], command: ServerCommand, home: string): ChildProcessWithoutNullStreams {
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: home,
    env: {
      ...process.env,
      ...LOOPBACK_ENV,
      RUST_LOG: 'warn',
      CODEX_HOME: home,
      THREAD_HOST_HOME: home, // the host prefers this name; an inherited one must not win
      // A login shell the server spawns (codex's per-thread shell snapshot) must not run the
      // user's dotfiles: a ~/.bashrc may start a version manager such as pyenv, and 32 of them
      // at once stall.
      HOME: home,
      CODEX_APP_SERVER_MANAGED_CONFIG_PATH: `${home}/managed_config.toml`,
      ...command.env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // own process group, so a kill reaches a wrapper's children too
  });
  trackChild(child);
  return child;
}

export class AppServerClient extends BenchConnection {
  readonly #transport: ChildStdioTransport;
  /** Spawn → initialize response, in ms. */
  initializeMs = 0;
  /** The initialize response's `userAgent`: the server's name and version. */
  userAgent = '';

  private constructor(transport: ChildStdioTransport, rpc: RpcConnection) {
    super(rpc, { keepUnclaimed: true });
    this.#transport = transport;
  }

  /** Spawns and initializes; resolves once the initialize response (the first message) arrived. */
  static async start(command: ServerCommand, home: string, deadlineMs = INITIALIZE_DEADLINE_MS): Promise<AppServerClient> {
    const startedAt = performance.now();
    const child = spawnServer(command.argv, command, home);
    // An undrained stderr pipe would eventually block the server's writes.
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // Reports keep an error's first line, so the server's last words go on it.
    const diagnostics = (): string => `server stderr: ${stderr.trimEnd().split('\n').pop()?.slice(0, 200) ?? ''}\nserver stderr tail:\n${stderr.slice(-1500)}`;
    const transport = new ChildStdioTransport(child, { killGroup: true });
    // A server→client request (approval etc.) is refused rather than left waiting.
    const rpc = new RpcConnection(transport, { keepUnclaimed: false, refuseServerRequests: true, diagnostics });
    const client = new AppServerClient(transport, rpc);
    const seen: Message[] = [];
    const onMessage = rpc.onMessage;
    rpc.onMessage = (message, at) => {
      if (seen.length === 0) seen.push(message);
      onMessage(message, at);
    };
    try {
      const { result, at } = await rpc.requestTimed('initialize', INITIALIZE_PARAMS, deadlineMs);
      if (seen[0]?.id !== 0) throw new Error(`first message was not the initialize response: ${JSON.stringify(seen[0]).slice(0, 300)}`);
      rpc.onMessage = onMessage; // the check is for the first message only, off the hot path after it
      client.initializeMs = at - startedAt;
      client.userAgent = String(result.userAgent ?? '');
    } catch (error) {
      await client.close(0);
      throw error;
    }
    rpc.notify('initialized');
    return client;
  }

  /** Ends stdin (graceful stop over stdio), waits up to `graceMs`, then kills the group. */
  async close(graceMs = CLOSE_GRACE_MS): Promise<Exit> {
    await this.#transport.close(graceMs);
    return this.#transport.exited;
  }

  get pid(): number | undefined {
    return this.#transport.child.pid;
  }
}
