// A command item's live output: each read of the runner goes to the thread's clients as
// `item/commandExecution/outputDelta` in the reference's chunk sizes, stdout and stderr in the
// order they came (one stream, as a pty gives them), and what streamed becomes the item's
// `aggregatedOutput` when it is the whole output.
import { StringDecoder } from 'node:string_decoder';
import type { HostContext } from '../../host-context.js';
import type { LoadedThread } from '../../threads/loaded-thread.js';
import type { CommandResult } from '../exec/command-runner.js';
import { EXEC_OUTPUT_MAX_BYTES } from '../exec/output-capture.js';
import type { OutputStream } from '../exec/running-command.js';

// The reference's live chunks: the first read is larger than the ones after it.
const FIRST_DELTA_BYTES = 8192;
const DELTA_BYTES = 4096;

export class CommandOutputStream {
  readonly #streamed: string[] = [];
  #streamedBytes = 0;
  #sent = 0;
  readonly #decoder = new StringDecoder('utf8');

  constructor(
    private readonly ctx: HostContext,
    private readonly thread: LoadedThread,
    private readonly turnId: string,
    private readonly itemId: string,
  ) {}

  /** The runner's `onOutput`. */
  readonly onOutput = (_stream: OutputStream, chunk: Buffer): void => {
    for (let at = 0; at < chunk.length; ) {
      const size = this.#sent === 0 ? FIRST_DELTA_BYTES : DELTA_BYTES;
      this.#delta(this.#decoder.write(chunk.subarray(at, at + size)));
      at += size;
      this.#sent += 1;
    }
  };

  /** Flushes a character cut in two; call once, when the command ended. */
  end(): void {
    this.#delta(this.#decoder.end());
  }

  /**
   * The item's output: what streamed, in the order it came; past the live-delta cap the
   * runner's capture (stdout then stderr) is all there is.
   */
  outputOf(result: CommandResult): string {
    return this.#streamedBytes >= result.stdoutBytes + result.stderrBytes ? this.#streamed.join('') : result.aggregatedOutput;
  }

  #delta(text: string): void {
    if (text === '') return;
    if (this.#streamedBytes < EXEC_OUTPUT_MAX_BYTES) this.#streamed.push(text);
    this.#streamedBytes += Buffer.byteLength(text);
    const { thread, turnId, itemId } = this;
    this.ctx.outgoing.notifyMany(thread.subscribers, 'item/commandExecution/outputDelta', { threadId: thread.id, turnId, itemId, delta: text });
  }
}
