// A server the bench reaches over WebSocket: its command's `{port}` is replaced by a free
// loopback port, it is spawned like any bench server, and it is ready once `GET /readyz`
// answers 200 (the reference's and this host's health endpoint). Stopped with SIGTERM: both
// shut down gracefully and exit 0.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { spawnServer } from './app-server-client.js';
import type { ServerCommand } from './server-command.js';

export const PORT_PLACEHOLDER = '{port}';
const READY_DEADLINE_MS = 30_000;
const READY_POLL_MS = 50;
const STOP_GRACE_MS = 10_000;

/**
 * The command as a WebSocket server: as given when it has `{port}`; `--listen stdio://`
 * replaced by `--listen ws://127.0.0.1:{port}` otherwise (so the default host works); else null.
 */
export function wsCommandOf(server: ServerCommand): ServerCommand | null {
  if (server.argv.some((word) => word.includes(PORT_PLACEHOLDER))) return server;
  const at = server.argv.indexOf('stdio://');
  if (at < 1 || server.argv[at - 1] !== '--listen') return null;
  const argv = [...server.argv];
  argv[at] = `ws://127.0.0.1:${PORT_PLACEHOLDER}`;
  return { ...server, argv };
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export class WsEndpoint {
  stderr = '';
  readonly #exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    readonly url: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-4_000)));
    child.stdout.resume();
    this.#exit = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Spawns `command` on a free port in `home`; resolves once /readyz answers. */
  static async start(command: ServerCommand, home: string): Promise<WsEndpoint> {
    const port = await freePort();
    const argv = command.argv.map((word) => word.replaceAll(PORT_PLACEHOLDER, String(port)));
    const endpoint = new WsEndpoint(`ws://127.0.0.1:${port}`, spawnServer(argv, command, home));
    const deadline = Date.now() + READY_DEADLINE_MS;
    while (!(await endpoint.#ready(port))) {
      if (endpoint.child.exitCode !== null || Date.now() > deadline) {
        await endpoint.stop();
        throw new Error(`server not ready on port ${port}: ${endpoint.stderr.trimEnd().split('\n').pop() ?? ''}`);
      }
      await delay(READY_POLL_MS);
    }
    return endpoint;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** SIGTERM, then SIGKILL to the group after the grace period; resolves with the exit. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-this.child.pid!, 'SIGKILL');
        } catch {
          this.child.kill('SIGKILL');
        }
      }, STOP_GRACE_MS);
      const exit = await this.#exit;
      clearTimeout(timer);
      return exit;
    }
    return this.#exit;
  }

  /** One sample of this server's `GET /metrics` (thread-host), or null when it has none. */
  async metric(name: string): Promise<number | null> {
    try {
      const response = await fetch(`${this.url.replace(/^ws:/, 'http:')}/metrics`, { signal: AbortSignal.timeout(5_000) });
      if (response.status !== 200) return null;
      const line = (await response.text()).split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? null : Number(line.slice(name.length + 1));
    } catch {
      return null;
    }
  }

  async #ready(port: number): Promise<boolean> {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) })).status === 200;
    } catch {
      return false;
    }
  }
}
