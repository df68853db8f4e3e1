// One generic helper for end-to-end tests over stdio: spawns the real CLI in a temporary home
// (see server-process.ts) and speaks JSON-RPC lines on its stdin/stdout through the client
// library (src/client), every message checked (see checked-connection.ts). A schema violation
// fails the test at close().
import { ChildStdioTransport } from '../../src/client/child-stdio-transport.js';
import { mockModelConfig } from '../../src/main/commands/mock-model/mock-config.js';
import { CheckedConnection, RpcReplyError, type Message } from './checked-connection.js';
import { CLI, ServerProcess, type ServerProcessOptions } from './server-process.js';

export { CLI, mockModelConfig, RpcReplyError, type Message };

export interface TestServerOptions extends ServerProcessOptions {
  initialize?: boolean;
}

export class TestServer extends CheckedConnection {
  private constructor(readonly process: ServerProcess) {
    super(new ChildStdioTransport(process.child), () => `stderr: ${process.stderr.slice(-2000)}`);
  }

  static async start(options: TestServerOptions = {}): Promise<TestServer> {
    const server = new TestServer(new ServerProcess(['--listen', 'stdio://'], options));
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
}
