// An MCP transport over a stdio server run in a process group of its own. The SDK's
// StdioClientTransport spawns with cross-spawn and no `detached`, and on close signals only
// the child, so a server's own children (a shell it ran, a `sleep`, a language server) would
// outlive it. This spawns the server as the leader of a new group and signals the whole group,
// as the reference does (codex-rs/rmcp-client/tests/process_group_cleanup.rs). The framing is
// the SDK's own (`ReadBuffer`, `serializeMessage`): the protocol stays the SDK client's.
import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What to run; `env` is the whole environment (nothing else is inherited). */
export interface ProcessLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
}

// After SIGTERM the group gets this long to exit before SIGKILL: long enough for a server to
// flush, short enough that a shutdown never waits on a server that ignores the signal.
export const TERM_GRACE_MS = 2_000;
// The largest line (one message) read from a server. A result past the hub's cap is refused
// after it is read; a line past this one cannot be framed, so the session is closed instead.
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** The SDK `Transport` of one server process; `onclose` fires once, when the process exits. */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #launch: ProcessLaunch;
  readonly #readBuffer = new ReadBuffer({ maxBufferSize: MAX_LINE_BYTES });
  #child: ChildProcess | null = null;
  #exited: Promise<void> | null = null;
  #closed = false;
  readonly #queue: JSONRPCMessage[] = [];
  #deferred = false;

  constructor(launch: ProcessLaunch) {
    this.#launch = launch;
  }

  /** The server's pid (the group's id too), once started. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.#child !== null) return Promise.reject(new Error('ProcessGroupTransport already started'));
    return new Promise<void>((resolve, reject) => {
      const child = spawn(this.#launch.command, this.#launch.args, {
        env: this.#launch.env,
        cwd: this.#launch.cwd ?? undefined,
        // stderr is the server's log: not ours to keep, and a pipe nobody reads would fill.
        stdio: ['pipe', 'pipe', 'ignore'],
        detached: true,
        shell: false,
      });
      this.#child = child;
      this.#exited = new Promise<void>((settle) => child.once('exit', () => settle()));
      child.once('error', (error) => {
        reject(error);
        this.#closeOnce();
      });
      child.once('spawn', () => resolve());
      // 'exit', not 'close': a grandchild holding the pipes open must not keep a dead
      // server's calls waiting. The rest of the group goes with its leader.
      child.once('exit', () => {
        this.#killGroup('SIGKILL');
        this.#closeOnce();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (this.#closed || stdin == null || stdin.destroyed) return Promise.reject(new Error('Not connected'));
    return new Promise<void>((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, signals the group, and waits for the leader's exit at most `TERM_GRACE_MS`. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === null || this.#exited === null) {
      this.#closeOnce();
      return;
    }
    child.stdin?.end();
    if (child.exitCode === null && child.signalCode === null) {
      this.#killGroup('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, TERM_GRACE_MS);
        timer.unref();
      });
      await Promise.race([this.#exited, grace]);
      clearTimeout(timer);
    }
    // Whatever is left of the group (the leader, or children that ignored SIGTERM).
    this.#killGroup('SIGKILL');
    this.#readBuffer.clear();
    this.#closeOnce();
  }

  #read(chunk: Buffer): void {
    try {
      this.#readBuffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#readBuffer.readMessage();
      } catch (error) {
        // A line that is not a JSON-RPC message: reported, skipped, as the SDK's transport does.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) break;
      this.#queue.push(message);
    }
    if (!this.#deferred) this.#deliver();
  }

  // The SDK's protocol handles a notification a microtask after it arrives but a response at
  // once, and forgets the request's progress handler with its response: a call's last
  // progress notifications, read in the same chunk as its result, would be dropped. So after a
  // notification the rest of the queue waits for the next iteration (and anything read
  // meanwhile queues behind it), keeping the server's order.
  #deliver(): void {
    this.#deferred = false;
    while (this.#queue.length > 0) {
      const message = this.#queue.shift()!;
      this.onmessage?.(message);
      if (!('id' in message) && this.#queue.length > 0) {
        this.#deferred = true;
        setImmediate(() => this.#deliver());
        return;
      }
    }
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  #closeOnce(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
