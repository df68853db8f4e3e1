// JSON-RPC lines over a child process's stdin/stdout (`app-server --listen stdio://`). The
// peer is gone when the child exited and its output was read; closing ends stdin (the
// server's graceful stop over stdio) and kills the child after a grace period.
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import type { MessageReader, MessageTransport, MessageWriter } from './message-transport.js';

/** The child's last output may still be in its pipes at exit; a grandchild holding them open must not stall the close. */
const OUTPUT_DRAIN_MS = 200;

export interface ChildStdioOptions {
  /** Kill the child's whole process group (it was spawned `detached`), reaching a wrapper's children too. */
  killGroup?: boolean;
}

export class ChildStdioTransport implements MessageTransport {
  readonly reader: MessageReader;
  readonly writer: MessageWriter;
  /** Resolves with the exit code and signal once the child exited and its output was read. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    readonly child: ChildProcess,
    private readonly options: ChildStdioOptions = {},
  ) {
    const { stdin, stdout } = child;
    if (stdin === null || stdout === null) throw new Error('the child needs piped stdin and stdout');
    stdin.on('error', () => undefined); // EPIPE after the child exits is reported by the exit
    const outputEnded = Promise.all([child.stdout, child.stderr].map((s) => (s === null || s.readableEnded ? Promise.resolve() : new Promise((resolve) => s.once('close', resolve)))));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        void Promise.race([outputEnded, delay(OUTPUT_DRAIN_MS)]).then(() => resolve({ code, signal }));
      }),
    );
    const lines = createInterface({ input: stdout });
    this.reader = {
      listen: (onText, onClose) => {
        lines.on('line', onText);
        void this.exited.then(({ code, signal }) => onClose(`server exited (${code ?? signal})`));
      },
    };
    this.writer = {
      write: (text) => {
        if (stdin.writable) stdin.write(text + '\n');
      },
      encode: (text) => Buffer.from(text + '\n'),
      writeEncoded: (frame) => {
        if (stdin.writable) stdin.write(frame);
      },
    };
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Ends stdin, waits up to `graceMs` for the exit, then kills. */
  async close(graceMs: number): Promise<void> {
    if (this.running) {
      this.child.stdin?.end();
      const timer = setTimeout(() => this.kill(), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    await this.exited;
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.options.killGroup && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, signal);
        return;
      } catch {
        // no such group (already gone, or not detached after all): kill the child alone
      }
    }
    this.child.kill(signal);
  }
}
