// A bench client for any app-server command over stdio: spawns it in a home (CODEX_HOME=home,
// cwd=home, as the reference harness does, protocol.md §8.1), sends `initialize` at once and
// requires the first line back to be its response. Replies are matched by id; notifications
// go to the first waiter that wants them or into a bounded buffer. Every wait has a deadline.
// Each message is stamped with its arrival time, so latency excludes the client's own queueing.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { trackChild } from './children.js';
import { DeadlineError } from './deadline.js';
import type { ServerCommand } from './server-command.js';

// Wire JSON is read field by field in scenario code; typing each method would be one wrapper per method.
type Json = Record<string, any>;

/** A JSON-RPC error reply, as a rejection of `request`. */
export class RpcReplyError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** A notification with the `performance.now()` at which its line was read. */
export interface Arrival {
  params: Json;
  at: number;
}

const DEFAULT_DEADLINE_MS = 30_000;
const INITIALIZE_DEADLINE_MS = 30_000;
/** Unclaimed notifications kept; the oldest go first. Far above any scenario's burst (32 threads × ~15). */
const MAX_BUFFERED = 20_000;
const STDERR_TAIL_CHARS = 4_000;
const CLOSE_GRACE_MS = 3_000;

/** Routes outbound traffic to loopback only: the reference must not try the network at start. */
const LOOPBACK_ENV = { HTTP_PROXY: 'http://127.0.0.1:9', HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1,localhost' };

const INITIALIZE_PARAMS = {
  clientInfo: { name: 'codex-app-server-tests', title: null, version: '0.1.0' },
  capabilities: { experimentalApi: true },
};

interface Waiter {
  method: string;
  test: (params: Json) => boolean;
  resolve: (arrival: Arrival) => void;
}

export class AppServerClient {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, { resolve: (m: Json, at: number) => void }>();
  readonly #waiters: Waiter[] = [];
  readonly #buffer: Array<{ method: string } & Arrival> = [];
  readonly #exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #nextId = 1;
  #stderr = '';
  #firstLine: ((message: Json, at: number) => void) | null = null;
  /** Spawn → initialize response, in ms. */
  initializeMs = 0;

  private constructor(command: ServerCommand, home: string) {
    this.#child = spawn(command.argv[0]!, command.argv.slice(1), {
      cwd: home,
      env: {
        ...process.env,
        ...LOOPBACK_ENV,
        RUST_LOG: 'warn',
        CODEX_HOME: home,
        THREAD_HOST_HOME: home, // the host prefers this name; an inherited one must not win
        CODEX_APP_SERVER_MANAGED_CONFIG_PATH: `${home}/managed_config.toml`,
        ...command.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // own process group, so a kill reaches a wrapper's children too
    });
    trackChild(this.#child);
    this.#exit = new Promise((resolve) => this.#child.once('exit', (code, signal) => resolve({ code, signal })));
    // An undrained stderr pipe would eventually block the server's writes.
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
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
      this.#pending.set(id, {
        resolve: (m, at) => {
          if ('error' in m) reject(new RpcReplyError(m.error?.code, `${method}: ${m.error?.message}`));
          else resolve({ result: m.result as T, at });
        },
      });
    });
    this.#send({ id, method, params });
    return this.#bounded(reply, deadlineMs, `reply to ${method} #${id}`).finally(() => this.#pending.delete(id));
  }

  async request<T = Json>(method: string, params: unknown, deadlineMs = DEFAULT_DEADLINE_MS): Promise<T> {
    return (await this.requestTimed<T>(method, params, deadlineMs)).result;
  }

  /**
   * The first buffered or future notification `method` whose params pass `test`. Register the
   * wait before sending the request that causes it when the arrival time matters.
   */
  waitForNotification(method: string, test: (params: Json) => boolean = () => true, deadlineMs = DEFAULT_DEADLINE_MS): Promise<Arrival> {
    const index = this.#buffer.findIndex((m) => m.method === method && test(m.params));
    if (index >= 0) {
      const [hit] = this.#buffer.splice(index, 1);
      return Promise.resolve({ params: hit!.params, at: hit!.at });
    }
    let waiter: Waiter | undefined;
    const arrival = new Promise<Arrival>((resolve) => {
      waiter = { method, test, resolve };
      this.#waiters.push(waiter);
    });
    return this.#bounded(arrival, deadlineMs, `notification ${method}`).finally(() => {
      const at = this.#waiters.indexOf(waiter!);
      if (at >= 0) this.#waiters.splice(at, 1);
    });
  }

  /** Drops unclaimed notifications, e.g. between scenarios sharing one server. */
  clearBuffer(): void {
    this.#buffer.length = 0;
  }

  /** Ends stdin (graceful stop over stdio), waits up to `graceMs`, then kills the group. */
  async close(graceMs = CLOSE_GRACE_MS): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
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
      return;
    }
    if ('method' in message && 'id' in message) {
      // A server→client request (approval etc.): refuse it rather than leave the server waiting.
      this.#send({ id: message.id, error: { code: -32601, message: 'bench client does not serve requests' } });
    } else if ('method' in message) {
      const params = (message.params ?? {}) as Json;
      const index = this.#waiters.findIndex((w) => w.method === message.method && w.test(params));
      if (index >= 0) {
        this.#waiters.splice(index, 1)[0]!.resolve({ params, at });
      } else {
        this.#buffer.push({ method: message.method as string, params, at });
        if (this.#buffer.length > MAX_BUFFERED) this.#buffer.shift();
      }
    } else {
      this.#pending.get(message.id as number)?.resolve(message, at);
    }
  }

  #bounded<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const fail = (why: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new DeadlineError(`${label}: ${why}; server stderr tail:\n${this.#stderr.slice(-1500)}`));
      };
      const timer = setTimeout(() => fail(`no answer within ${ms} ms`), ms);
      // A dead server never answers: fail at once instead of at the deadline.
      void this.#exit.then(({ code, signal }) => fail(`server exited (${code ?? signal})`));
      promise.then(
        (value) => {
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          settled = true;
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}
