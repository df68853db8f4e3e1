// The real CLI (`dist/bundle/cli.js`, the build users run) as a child process in a temporary home, whatever transport it serves:
// config.toml written (pointing at a mock model when given), stderr captured, the JSON log
// lines parsed, and the home removed afterwards when the helper made it.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mockModelConfig } from '../../src/main/commands/mock-model/mock-config.js';
import { DEFAULT_TIMEOUT_MS, type Message } from './checked-connection.js';

export const CLI = fileURLToPath(new URL('../../dist/bundle/cli.js', import.meta.url));

export interface ServerProcessOptions {
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
  /** The server to spawn instead of this build (argv; `args` are appended): the reference, say. */
  command?: string[];
}

export class ServerProcess {
  readonly home: string;
  readonly child: ChildProcessWithoutNullStreams;
  stderr = '';
  readonly #ownsHome: boolean;
  readonly #exit: Promise<number | null>;

  /** Spawns `thread-host app-server <listenArgs…> <options.args…>` (or `options.command`, then the args). */
  constructor(listenArgs: string[], options: ServerProcessOptions) {
    this.#ownsHome = options.home === undefined;
    this.home = options.home ?? mkdtempSync(join(tmpdir(), 'thread-host-test-'));
    if (!options.keepConfig) {
      const config = options.modelUrl ? mockModelConfig(options.modelUrl, options.rootConfig) : (options.rootConfig ?? '');
      writeFileSync(join(this.home, 'config.toml'), config);
    }
    const [program, ...argv] = options.command ?? [process.execPath, CLI, 'app-server', ...listenArgs];
    this.child = spawn(program!, [...argv, ...(options.args ?? [])], {
      cwd: this.home,
      env: { ...process.env, CODEX_HOME: this.home, THREAD_HOST_HOME: this.home, RUST_LOG: 'warn', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.#exit = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
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

  /** Resolves with the first log line matching `test`, as soon as it is written. */
  waitForLog(test: (line: Message) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Message> {
    return this.waitForStderr(() => this.logLines().find(test), timeoutMs, 'no matching log line');
  }

  /** Resolves with `find()`'s first defined result, re-checked at each stderr chunk. */
  waitForStderr<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = find();
        if (found === undefined) return;
        stop();
        resolve(found);
      };
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`${what} within ${timeoutMs} ms; stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      // The constructor's listener was added first, so `stderr` already holds each new chunk.
      const stop = (): void => {
        clearTimeout(timer);
        this.child.stderr.off('data', check);
      };
      this.child.stderr.on('data', check);
      this.#exit.then(() => setImmediate(check));
      check();
    });
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    this.child.kill(signal);
    return this.#exit;
  }

  get exited(): Promise<number | null> {
    return this.#exit;
  }

  /** Waits for exit (killing after `timeoutMs`), removes an own home, returns the exit code. */
  async reap(timeoutMs: number): Promise<number | null> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.#exit;
    clearTimeout(timer);
    if (this.#ownsHome) rmSync(this.home, { recursive: true, force: true });
    return code;
  }
}
