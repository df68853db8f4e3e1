// One generic helper for end-to-end tests over stdio: spawns the real CLI in a temporary home
// (see server-process.ts) and speaks JSON-RPC lines on its stdin/stdout (see rpc-peer.ts).
// Every message the server sends is validated against the official schema; a violation fails
// the test at close().
import { createInterface } from 'node:readline';
import { mockModelConfig } from '../../src/main/mock-model/mock-config.js';
import { RpcPeer, RpcReplyError, type Message } from './rpc-peer.js';
import { CLI, ServerProcess, type ServerProcessOptions } from './server-process.js';

export { CLI, mockModelConfig, RpcReplyError, type Message };

export interface TestServerOptions extends ServerProcessOptions {
  initialize?: boolean;
}

export class TestServer extends RpcPeer {
  readonly process: ServerProcess;

  private constructor(options: TestServerOptions) {
    super();
    this.process = new ServerProcess(['--listen', 'stdio://'], options);
    createInterface({ input: this.child.stdout }).on('line', (line) => this.receive(line));
  }

  static async start(options: TestServerOptions = {}): Promise<TestServer> {
    const server = new TestServer(options);
    if (options.initialize !== false) await server.initialize();
    return server;
  }

  get home(): string {
    return this.process.home;
  }

  get child() {
    return this.process.child;
  }

  get stderr(): string {
    return this.process.stderr;
  }

  get exited(): Promise<number | null> {
    return this.process.exited;
  }

  logLines(): Message[] {
    return this.process.logLines();
  }

  waitForLog(test: (line: Message) => boolean, timeoutMs?: number): Promise<Message> {
    return this.process.waitForLog(test, timeoutMs);
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    return this.process.kill(signal);
  }

  /** Closes stdin, waits for exit (then kills), and returns the exit code. */
  async close(timeoutMs = 5_000): Promise<number | null> {
    this.child.stdin.end();
    const code = await this.process.reap(timeoutMs);
    if (this.schemaProblems.length > 0) throw new Error(`server sent messages that violate the schema:\n${this.schemaProblems.join('\n')}`);
    return code;
  }

  protected write(text: string): void {
    this.child.stdin.write(text + '\n');
  }

  protected diagnostics(): string {
    return `stderr: ${this.stderr.slice(-2000)}`;
  }
}
