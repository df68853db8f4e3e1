// A bench client for any app-server command over stdio: spawns it in a home (CODEX_HOME=home,
// cwd=home, as the reference harness does, protocol.md §8.1), sends `initialize` at once and
// requires the first line back to be its response. Replies are matched by id; notifications
// are matched by (method, thread id) to a waiter or kept in a bounded buffer. Every wait has
// a deadline. Each message is stamped with its arrival time, so latency excludes the
// client's own queueing.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { trackChild } from './children.js';
import { NotificationBuffer, notificationKey, type Arrival, type Json } from './notification-buffer.js';
import type { ServerCommand } from './server-command.js';

export type { Arrival, Json };

/** A JSON-RPC error reply, as a rejection of `request`. */
export class RpcReplyError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** The reference's "Server overloaded; retry later." (inbound queue full): retryable. */
export const OVERLOADED = -32001;

const DEFAULT_DEADLINE_MS = 30_000;
const INITIALIZE_DEADLINE_MS = 30_000;
const STDERR_TAIL_CHARS = 4_000;
const CLOSE_GRACE_MS = 3_000;
const STDERR_DRAIN_MS = 200;

/** Routes outbound traffic to loopback only: the reference must not try the network at start. */
const LOOPBACK_ENV = { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,localhost' };

export const INITIALIZE_PARAMS = {
  clientInfo: { name: 'codex-app-server-tests', title: null, version: '0.1.0' },
  capabilities: { experimentalApi: true },
};

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
      // user's dotfiles: on this machine ~/.bashrc starts pyenv, and 32 of them at once stall.
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

export class AppServerClient {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, (message: Json, at: number) => void>();
  readonly #notifications = new NotificationBuffer();
  /** Fails every open wait at once when the server dies, instead of at each deadline. */
  readonly #onExit = new Set<(why: string) => void>();
  readonly #exit: Promise<Exit>;
  #nextId = 1;
  #stderr = '';
  /** Set once the server exited and its last stderr was read: why waits now fail. */
  #exited: string | null = null;
  #firstLine: ((message: Json, at: number) => void) | null = null;
  /** Spawn → initialize response, in ms. */
  initializeMs = 0;
  /** The initialize response's `userAgent`: the server's name and version. */
  userAgent = '';

  private constructor(command: ServerCommand, home: string) {
    this.#child = spawnServer(command.argv, command, home);
    // An undrained stderr pipe would eventually block the server's writes.
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    const stderrEnded = new Promise<void>((resolve) => this.#child.stderr.once('end', resolve));
    this.#exit = new Promise((resolve) =>
      this.#child.once('exit', (code, signal) => {
        // The last stderr lines (why it exited) may still be in the pipe; a grandchild that
        // inherited it may keep it open for ever, hence the short cap.
        void Promise.race([stderrEnded, delay(STDERR_DRAIN_MS)]).then(() => {
          this.#exited = `server exited (${code ?? signal})`;
          for (const fail of this.#onExit) fail(this.#exited);
          resolve({ code, signal });
        });
      }),
    );
    this.#child.stdin.on('error', () => undefined); // EPIPE after the server exits is reported via exit
    createInterface({ input: this.#child.stdout }).on('line', (line) => this.#receive(line, performance.now()));
  }

  /** Spawns and initializes; resolves once the initialize response (the first line) arrived. */
  static async start(command: ServerCommand, home: string, deadlineMs = INITIALIZE_DEADLINE_MS): Promise<AppServerClient> {
    const startedAt = performance.now();
    const client = new AppServerClient(command, home);
    const first = new Promise<{ message: Json; at: number }>((resolve) => {
      client.#firstLine = (message, at) => resolve({ message, at });
    });
    client.#send({ id: 0, method: 'initialize', params: INITIALIZE_PARAMS });
    try {
      const { message, at } = await client.#bounded(first, deadlineMs, 'initialize response');
      if (message.id !== 0 || !('result' in message)) {
        throw new Error(`first line was not the initialize response: ${JSON.stringify(message).slice(0, 300)}`);
      }
      client.initializeMs = at - startedAt;
      client.userAgent = String(message.result?.userAgent ?? '');
    } catch (error) {
      await client.close(0);
      throw error;
    }
    client.#send({ method: 'initialized' });
    return client;
  }

  /** Sends a request; resolves with its result and the reply's arrival time. */
  requestTimed<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<{ result: T; at: number }> {
    const id = this.#nextId++;
    const reply = new Promise<{ result: T; at: number }>((resolve, reject) => {
      this.#pending.set(id, (m, at) => {
        if ('error' in m) reject(new RpcReplyError(m.error?.code, `${method}: ${m.error?.message}`));
        else resolve({ result: m.result as T, at });
      });
    });
    this.#send({ id, method, params });
    return this.#bounded(reply, deadlineMs, `reply to ${method} #${id}`).finally(() => this.#pending.delete(id));
  }

  async request<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<T> {
    return (await this.requestTimed<T>(method, params, deadlineMs)).result;
  }

  /**
   * The first buffered or future notification `method` about `threadId` (`params.threadId`,
   * or `params.thread.id`). Register the wait before sending the request that causes it when
   * the arrival time matters.
   */
  waitFor(method: string, threadId: string, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Arrival> {
    const key = notificationKey(method, threadId);
    const { arrival, cancel } = this.#notifications.wait(key);
    const waited = this.#bounded(arrival, deadlineMs, `notification ${method} for ${threadId}`).finally(cancel);
    // A wait whose request then failed is never awaited: its deadline must not crash the bench
    // as an unhandled rejection. Whoever awaits it still sees the error.
    waited.catch(() => undefined);
    return waited;
  }

  /** Drops unclaimed notifications, e.g. between phases sharing one server. */
  clearBuffer(): void {
    this.#notifications.clear();
  }

  /** Ends stdin (graceful stop over stdio), waits up to `graceMs`, then kills the group. */
  async close(graceMs = CLOSE_GRACE_MS): Promise<Exit> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.stdin.end();
      const timer = setTimeout(() => this.#kill(), graceMs);
      const exit = await this.#exit;
      clearTimeout(timer);
      return exit;
    }
    return this.#exit;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  #kill(): void {
    try {
      process.kill(-this.#child.pid!, 'SIGKILL');
    } catch {
      this.#child.kill('SIGKILL');
    }
  }

  #send(message: Json): void {
    if (this.#child.stdin.writable) this.#child.stdin.write(JSON.stringify(message) + '\n');
  }

  #receive(line: string, at: number): void {
    let message: Json;
    try {
      message = JSON.parse(line) as Json;
    } catch {
      return; // not JSON-RPC; the reference never does this, and a host bug shows up as a timeout
    }
    if (this.#firstLine !== null) {
      const first = this.#firstLine;
      this.#firstLine = null;
      first(message, at);
    } else if ('method' in message && 'id' in message) {
      // A server→client request (approval etc.): refuse it rather than leave the server waiting.
      this.#send({ id: message.id, error: { code: -32601, message: 'bench client does not serve requests' } });
    } else if ('method' in message) {
      this.#notifications.deliver(String(message.method), (message.params ?? {}) as Json, at);
    } else {
      this.#pending.get(message.id as number)?.(message, at);
    }
  }

  #bounded<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const fail = (why: string): void => {
        settle();
        // Reports keep an error's first line, so the server's last words go on it.
        const last = this.#stderr.trimEnd().split('\n').pop()?.slice(0, 200) ?? '';
        reject(new Error(`${label}: ${why}${last ? `; server stderr: ${last}` : ''}\nserver stderr tail:\n${this.#stderr.slice(-1500)}`));
      };
      const settle = (): void => {
        clearTimeout(timer);
        this.#onExit.delete(fail);
      };
      const timer = setTimeout(() => fail(`no answer within ${ms} ms`), ms);
      // A dead server never answers: fail at once instead of at the deadline.
      if (this.#exited !== null) fail(this.#exited);
      else this.#onExit.add(fail);
      promise.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }
}
