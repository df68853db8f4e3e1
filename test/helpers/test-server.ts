// One generic helper for end-to-end tests: spawns the real CLI (`dist/`) over stdio in a
// temporary home, with config.toml pointing at a real mock model on loopback. Messages that
// no test is waiting for are buffered. Every message the server sends is validated against
// the official schema; a violation fails the test at close().
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { mockModelConfig } from '../../src/main/mock-model/mock-config.js';
import { SchemaValidator } from './schema-validator.js';

export { mockModelConfig };

export const CLI = fileURLToPath(new URL('../../dist/src/main/cli.js', import.meta.url));
const DEFAULT_TIMEOUT_MS = 10_000;
const validator = new SchemaValidator();

export type Message = Record<string, any>;

/** An error reply, thrown by `request`. */
export class RpcReplyError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface TestServerOptions {
  /** Home to use (shared between servers); a fresh temp dir when absent. */
  home?: string;
  /** Mock model base URL (`http://127.0.0.1:PORT/v1`); when absent the embedded model answers. */
  modelUrl?: string;
  /** Extra top-level config.toml lines (written before the provider table). */
  rootConfig?: string;
  /** Skip writing config.toml (the home already has one). */
  keepConfig?: boolean;
  env?: Record<string, string>;
  args?: string[];
  initialize?: boolean;
  /** The server to spawn instead of this build (argv; `args` are appended): the reference, say. */
  command?: string[];
}

export class TestServer {
  readonly home: string;
  readonly child: ChildProcessWithoutNullStreams;
  readonly received: Message[] = [];
  readonly schemaProblems: string[] = [];
  stderr = '';
  #buffer: Message[] = [];
  #waiters: Array<{ test: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  #pendingMethods = new Map<string | number, string>();
  #nextId = 0;
  #ownsHome: boolean;
  #exit: Promise<number | null>;

  private constructor(options: TestServerOptions) {
    this.#ownsHome = options.home === undefined;
    this.home = options.home ?? mkdtempSync(join(tmpdir(), 'thread-host-test-'));
    if (!options.keepConfig) {
      const config = options.modelUrl ? mockModelConfig(options.modelUrl, options.rootConfig) : (options.rootConfig ?? '');
      writeFileSync(join(this.home, 'config.toml'), config);
    }
    const [program, ...argv] = options.command ?? [process.execPath, CLI, 'app-server', '--listen', 'stdio://'];
    this.child = spawn(program!, [...argv, ...(options.args ?? [])], {
      cwd: this.home,
      env: { ...process.env, CODEX_HOME: this.home, THREAD_HOST_HOME: this.home, RUST_LOG: 'warn', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.#exit = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => this.#receive(line));
  }

  static async start(options: TestServerOptions = {}): Promise<TestServer> {
    const server = new TestServer(options);
    if (options.initialize !== false) {
      await server.request('initialize', { clientInfo: { name: 'codex-app-server-tests', title: null, version: '0.1.0' }, capabilities: { experimentalApi: true } });
      server.notify('initialized');
    }
    return server;
  }

  /** Sends a request and resolves with its result; an error reply rejects with RpcReplyError. */
  async request<T = Message>(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<T> {
    const reply = await this.requestRaw(method, params, timeoutMs);
    if ('error' in reply) throw new RpcReplyError(reply.error.code, reply.error.message, reply.error.data);
    return reply.result as T;
  }

  /** Sends a request and resolves with the whole reply message. */
  requestRaw(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    const id = this.#nextId++;
    const message: Message = params === undefined ? { id, method } : { id, method, params };
    this.#pendingMethods.set(id, method);
    const reply = this.waitFor((m) => m.id === id && !('method' in m), timeoutMs, `reply to ${method} #${id}`);
    this.sendLine(JSON.stringify(message));
    return reply;
  }

  notify(method: string, params?: unknown): void {
    this.sendLine(JSON.stringify(params === undefined ? { method } : { method, params }));
  }

  sendLine(line: string): void {
    // Remember the method of hand-written requests too, so their replies are validated.
    try {
      const parsed = JSON.parse(line) as Message;
      if (parsed && typeof parsed.method === 'string' && (typeof parsed.id === 'string' || Number.isInteger(parsed.id))) {
        this.#pendingMethods.set(parsed.id, parsed.method);
      }
    } catch {
      // Not JSON: sent on purpose by a test of malformed input.
    }
    this.child.stdin.write(line + '\n');
  }

  waitForNotification(method: string, predicate: (params: Message) => boolean = () => true, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    return this.waitFor((m) => m.method === method && predicate(m.params ?? {}), timeoutMs, `notification ${method}`).then((m) => m.params);
  }

  /** Resolves with the first buffered or future message matching `test`, removing it from the buffer. */
  waitFor(test: (m: Message) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS, label = 'message'): Promise<Message> {
    const index = this.#buffer.findIndex(test);
    if (index >= 0) return Promise.resolve(this.#buffer.splice(index, 1)[0]!);
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (m: Message) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${label}; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }

  /** Everything received so far whose method matches, in order (buffered or consumed). */
  notifications(method?: string): Message[] {
    return this.received.filter((m) => 'method' in m && (method === undefined || m.method === method));
  }

  /** The JSON log lines the server has written to stderr so far. */
  logLines(): Message[] {
    return this.stderr.split('\n').flatMap((line) => {
      try {
        return [JSON.parse(line) as Message];
      } catch {
        return [];
      }
    });
  }

  /** Resolves with the first log line matching `test`, as soon as it is written (stderr lags stdout). */
  waitForLog(test: (line: Message) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.logLines().find(test);
        if (found === undefined) return;
        stop();
        resolve(found);
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      // The constructor's listener was added first, so `stderr` already holds each new chunk.
      const stop = (): void => {
        clearTimeout(timer);
        this.child.stderr.off('data', check);
      };
      this.child.stderr.on('data', check);
      check();
    });
  }

  /** Closes stdin, waits for exit (then kills), and returns the exit code. */
  async close(timeoutMs = 5_000): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.#exit;
    clearTimeout(timer);
    if (this.#ownsHome) rmSync(this.home, { recursive: true, force: true });
    if (this.schemaProblems.length > 0) throw new Error(`server sent messages that violate the schema:\n${this.schemaProblems.join('\n')}`);
    return code;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    this.child.kill(signal);
    return this.#exit;
  }

  get exited(): Promise<number | null> {
    return this.#exit;
  }

  #receive(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line);
    } catch {
      this.schemaProblems.push(`not JSON: ${line.slice(0, 200)}`);
      return;
    }
    this.received.push(message);
    const requestMethod = 'method' in message ? undefined : this.#pendingMethods.get(message.id);
    if (!('method' in message)) this.#pendingMethods.delete(message.id);
    for (const problem of validator.check(message, requestMethod)) this.schemaProblems.push(problem);
    const index = this.#waiters.findIndex((w) => w.test(message));
    if (index >= 0) this.#waiters.splice(index, 1)[0]!.resolve(message);
    else this.#buffer.push(message);
  }
}
